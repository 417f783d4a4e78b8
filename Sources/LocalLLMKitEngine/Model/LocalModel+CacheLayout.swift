extension LocalModel.Configuration {
    /// How the sequences of a model's context (``parallelSequences``) keep their KV cache.
    ///
    /// Both layouts hold ``contextLength`` tokens for each sequence and reuse a cached prefix
    /// across requests; they differ in what attention covers and in how a prefix is reused.
    /// Without one chosen (``LocalModel/Configuration/Context/cacheLayout`` nil), the CPU uses
    /// ``perSequence`` and a GPU ``unified``: each what was measured faster there (docs/PERFORMANCE.md).
    ///
    /// ```swift
    /// let server = try await LocalModel.load(from: url, configuration: .init(parallelSequences: 8, cacheLayout: .unified))
    /// ```
    public enum CacheLayout: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Each sequence has cells of its own (llama.cpp's default for a fixed number of slots):
        /// a token attends only over its own sequence's cells, however the other sequences come
        /// and go. A prefix taken from another sequence is copied (the whole sequence's cells,
        /// then cut back), once, at the next decode step.
        case perSequence = "per-sequence"
        /// One pool of cells for every sequence (llama.cpp's `kv_unified`): a prefix taken from
        /// another sequence shares its cells instead of copying them. Requests that come and go
        /// leave their cells interleaved, and a prompt then attends over every cell in use, so
        /// prompts cost more per token as the pool fills (measured in docs/PERFORMANCE.md).
        case unified

        /// "per-sequence" or "unified".
        public var description: String { rawValue }
    }
}
