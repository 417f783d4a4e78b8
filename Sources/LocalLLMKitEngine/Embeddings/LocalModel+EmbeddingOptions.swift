extension LocalModel {
    /// How the vectors of an input's tokens become the input's one vector.
    public enum Pooling: String, Sendable, CaseIterable, Codable {
        /// The model's own pooling, from its GGUF metadata (`<architecture>.pooling_type`):
        /// mean for all-MiniLM-L6-v2. A model that names none gets ``last`` when its
        /// attention is causal (Qwen, Gemma, Llama) and ``mean`` otherwise.
        case automatic
        /// The average of the token vectors.
        case mean
        /// The first token's vector (BERT's `[CLS]`).
        case cls
        /// The last token's vector: what a causal decoder has read the whole input with.
        case last
    }

    /// Options for ``LocalModel/embeddings(for:options:)``.
    ///
    /// ```swift
    /// let options = LocalModel.EmbeddingOptions(pooling: .mean, normalizes: true, truncates: true)
    /// ```
    public struct EmbeddingOptions: Sendable, Equatable {
        /// The pooling; ``Pooling/automatic`` uses the model's own.
        public var pooling: Pooling
        /// Whether each vector is scaled to length 1 (L2), so that a dot product is the cosine.
        public var normalizes: Bool
        /// Whether an input longer than ``LocalModel/embeddingInputLimit`` is cut to fit (its
        /// first tokens, and its closing separator token when the model adds one) instead of
        /// failing with ``LocalModel/EmbeddingError/inputTooLong(index:tokenCount:limit:)``.
        /// ``LocalModel/Embeddings/truncatedIndices`` says which were cut.
        public var truncates: Bool

        /// Creates options; the defaults are the model's own pooling, normalised vectors and
        /// no truncation.
        public init(pooling: Pooling = .automatic, normalizes: Bool = true, truncates: Bool = false) {
            self.pooling = pooling
            self.normalizes = normalizes
            self.truncates = truncates
        }
    }
}
