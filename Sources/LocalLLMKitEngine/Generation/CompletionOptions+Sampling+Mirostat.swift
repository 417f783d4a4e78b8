extension CompletionOptions.Sampling {
    /// Mirostat: steers each draw toward a target surprise (entropy), in place of top-k, typical-p,
    /// top-p and min-p. llama.cpp's `mirostat`, `mirostat_tau` and `mirostat_eta`.
    public struct Mirostat: Sendable, Equatable {
        /// The algorithm's two versions: 2.0 is the simpler and the usual choice.
        public enum Version: Int, Sendable, Equatable {
            case v1 = 1
            case v2 = 2
        }

        /// Which version runs.
        public var version: Version
        /// The target surprise, in bits (≥ 0).
        public var tau: Double
        /// How fast it moves toward the target (> 0).
        public var eta: Double

        /// Creates the setting; the defaults are llama.cpp's.
        public init(version: Version = .v2, tau: Double = 5, eta: Double = 0.1) {
            self.version = version
            self.tau = tau
            self.eta = eta
        }
    }
}
