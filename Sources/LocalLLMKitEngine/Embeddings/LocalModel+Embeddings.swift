extension LocalModel {
    /// The vectors of a list of texts, from ``LocalModel/embeddings(for:options:)``.
    public struct Embeddings: Sendable, Equatable {
        /// One vector per text, in the order given.
        public var vectors: [[Float]]
        /// The length of each vector.
        public var dimensions: Int
        /// The pooling used (never ``Pooling/automatic``).
        public var pooling: Pooling
        /// Whether the vectors have length 1.
        public var isNormalized: Bool
        /// The tokens each text was embedded from (after truncation).
        public var tokenCounts: [Int]
        /// The positions of the texts that were cut to fit (``EmbeddingOptions/truncates``).
        public var truncatedIndices: [Int]
        /// How many `llama_decode` calls the texts took: texts are packed many to a call.
        public var decodeCount: Int
        /// How long embedding took, tokenization included.
        public var duration: Duration
        /// The part of ``duration`` spent in `llama_decode` and reading the vectors.
        public var decodingDuration: Duration

        /// Creates a result (for tests and remote backends; the model makes its own).
        public init(vectors: [[Float]], dimensions: Int, pooling: Pooling, isNormalized: Bool, tokenCounts: [Int],
                    truncatedIndices: [Int], decodeCount: Int, duration: Duration, decodingDuration: Duration = .zero) {
            self.vectors = vectors
            self.dimensions = dimensions
            self.pooling = pooling
            self.isNormalized = isNormalized
            self.tokenCounts = tokenCounts
            self.truncatedIndices = truncatedIndices
            self.decodeCount = decodeCount
            self.duration = duration
            self.decodingDuration = decodingDuration
        }

        /// The tokens of all texts together (what OpenAI's `usage.prompt_tokens` counts).
        public var totalTokenCount: Int { tokenCounts.reduce(0, +) }
    }
}
