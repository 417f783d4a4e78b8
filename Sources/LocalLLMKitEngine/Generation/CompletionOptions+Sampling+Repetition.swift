extension CompletionOptions.Sampling {
    /// DRY ("don't repeat yourself"): lowers the tokens that would extend a sequence the text
    /// already holds, more the longer that sequence is, so that loops die out while the single
    /// words a text needs again are left alone. llama.cpp's `dry_*` settings.
    public struct RepetitionGuard: Sendable, Equatable {
        /// How strongly a repeat is lowered; 0 turns the guard off.
        public var multiplier: Double
        /// The base of the exponential growth with the repeat's length (≥ 1).
        public var base: Double
        /// Repeats up to this many tokens long are free.
        public var allowedLength: Int
        /// How many recent tokens are searched for repeats; -1 means the whole context.
        public var window: Int
        /// Texts that end a sequence: a repeat never reaches across one.
        public var sequenceBreakers: [String]

        /// llama.cpp's breakers: a new line, a colon, a double quote and an asterisk.
        public static let defaultSequenceBreakers = ["\n", ":", "\"", "*"]

        /// Creates a guard; the defaults are llama.cpp's.
        public init(multiplier: Double, base: Double = 1.75, allowedLength: Int = 2, window: Int = -1,
                    sequenceBreakers: [String] = defaultSequenceBreakers) {
            self.multiplier = multiplier
            self.base = base
            self.allowedLength = allowedLength
            self.window = window
            self.sequenceBreakers = sequenceBreakers
        }

        /// The most sequence breakers, and the longest one in bytes: each is tokenized for every sampler.
        public static let maximumSequenceBreakers = 64
        public static let maximumSequenceBreakerBytes = 256
    }
}
