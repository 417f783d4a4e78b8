extension CompletionOptions.Sampling {
    /// XTC ("exclude top choices"): with some probability per token, drops every likely token but
    /// the least likely of them, for less predictable text without raising the temperature.
    /// llama.cpp's `xtc_*` settings.
    public struct TopChoiceExclusion: Sendable, Equatable {
        /// The chance that a token's draw excludes top choices (0 … 1; 0 turns it off).
        public var probability: Double
        /// A token counts as a top choice when at least this likely (0 … 1; above 0.5 nothing is excluded).
        public var threshold: Double

        /// Creates the setting; the threshold's default is llama.cpp's.
        public init(probability: Double, threshold: Double = 0.1) {
            self.probability = probability
            self.threshold = threshold
        }
    }
}
