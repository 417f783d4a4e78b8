extension CompletionOptions {
    /// How the next token is picked from the model's scores.
    ///
    /// Every field is optional. A field left `nil` takes the model's own recommendation (its
    /// `general.sampling.*` metadata) when it has one, and llama.cpp's default otherwise
    /// (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, no penalties).
    public struct Sampling: Sendable, Equatable {
        /// Softmax temperature; 0 picks the most likely token every time (greedy).
        public var temperature: Double?
        /// Keep only the `topK` most likely tokens; 0 keeps the whole vocabulary.
        public var topK: Int?
        /// Keep the smallest set of tokens whose probabilities add up to `topP` (0 < p ≤ 1).
        public var topP: Double?
        /// Drop tokens less likely than `minP` times the most likely one (0 ≤ p ≤ 1).
        public var minP: Double?
        /// Locally typical sampling: keep the tokens whose surprise is closest to the expected
        /// one, up to this probability mass (0 < p ≤ 1; 1 = off).
        public var typicalP: Double?
        /// Divides the logit of every recently seen token (1 = off).
        public var repetitionPenalty: Double?
        /// Subtracted from the logit of every recently seen token (0 = off).
        public var presencePenalty: Double?
        /// Subtracted once per earlier occurrence of a recently seen token (0 = off).
        public var frequencyPenalty: Double?
        /// How many recent tokens the penalties look at; -1 means the whole context.
        public var penaltyWindow: Int?
        /// Lowers tokens that would extend a repeated sequence (DRY); nil = off.
        public var repetitionGuard: RepetitionGuard?
        /// Sometimes drops the likeliest tokens (XTC); nil = off.
        public var topChoiceExclusion: TopChoiceExclusion?
        /// Steers toward a target surprise in place of top-k … min-p; nil = off.
        public var mirostat: Mirostat?
        /// The random seed. The same seed, options, model and prompt give the same output.
        /// `nil` picks a random seed, reported with the result.
        public var seed: UInt32?
        /// Added to the logits of these tokens before sampling; `-Double.infinity` bans a token.
        public var logitBias: [LocalModel.Token: Double]

        /// Creates sampling settings; every argument is optional.
        public init(temperature: Double? = nil, topK: Int? = nil, topP: Double? = nil, minP: Double? = nil,
                    repetitionPenalty: Double? = nil, presencePenalty: Double? = nil, frequencyPenalty: Double? = nil,
                    penaltyWindow: Int? = nil, seed: UInt32? = nil, logitBias: [LocalModel.Token: Double] = [:],
                    typicalP: Double? = nil, repetitionGuard: RepetitionGuard? = nil,
                    topChoiceExclusion: TopChoiceExclusion? = nil, mirostat: Mirostat? = nil) {
            self.temperature = temperature
            self.topK = topK
            self.topP = topP
            self.minP = minP
            self.repetitionPenalty = repetitionPenalty
            self.presencePenalty = presencePenalty
            self.frequencyPenalty = frequencyPenalty
            self.penaltyWindow = penaltyWindow
            self.seed = seed
            self.logitBias = logitBias
            self.typicalP = typicalP
            self.repetitionGuard = repetitionGuard
            self.topChoiceExclusion = topChoiceExclusion
            self.mirostat = mirostat
        }

        /// Always the most likely token.
        public static let greedy = Sampling(temperature: 0)

        /// These settings, with every `nil` field filled from `defaults` (the seed and the
        /// logit bias are the request's own).
        public func filling(from defaults: Sampling) -> Sampling {
            var merged = self
            merged.temperature = temperature ?? defaults.temperature
            merged.topK = topK ?? defaults.topK
            merged.topP = topP ?? defaults.topP
            merged.minP = minP ?? defaults.minP
            merged.repetitionPenalty = repetitionPenalty ?? defaults.repetitionPenalty
            merged.presencePenalty = presencePenalty ?? defaults.presencePenalty
            merged.frequencyPenalty = frequencyPenalty ?? defaults.frequencyPenalty
            merged.penaltyWindow = penaltyWindow ?? defaults.penaltyWindow
            merged.typicalP = typicalP ?? defaults.typicalP
            merged.repetitionGuard = repetitionGuard ?? defaults.repetitionGuard
            merged.topChoiceExclusion = topChoiceExclusion ?? defaults.topChoiceExclusion
            merged.mirostat = mirostat ?? defaults.mirostat
            return merged
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` with a name such as `sampling.topP`.
        public func validate() throws {
            func fail(_ name: String, _ reason: String) -> LocalModel.Error {
                .invalidOption(name: "sampling.\(name)", reason: reason)
            }
            // llama.cpp takes these as Float: a Double beyond Float's range would become infinite there.
            let floats: [(String, Double?)] = [("temperature", temperature), ("repetitionPenalty", repetitionPenalty),
                                               ("presencePenalty", presencePenalty), ("frequencyPenalty", frequencyPenalty)]
            if let (name, value) = floats.first(where: { $0.1.map { $0.isFinite && !Float($0).isFinite } ?? false }) {
                throw fail(name, "\(value!) is too large")
            }
            if let temperature, !(temperature.isFinite && temperature >= 0) { throw fail("temperature", "\(temperature) is not a finite number ≥ 0") }
            if let topK, topK < 0 { throw fail("topK", "\(topK) is negative") }
            if let topP, !(topP > 0 && topP <= 1) { throw fail("topP", "\(topP) is not in (0, 1]") }
            if let minP, !(minP >= 0 && minP <= 1) { throw fail("minP", "\(minP) is not in [0, 1]") }
            if let repetitionPenalty, !(repetitionPenalty.isFinite && repetitionPenalty > 0) {
                throw fail("repetitionPenalty", "\(repetitionPenalty) is not a finite number > 0")
            }
            if let presencePenalty, !presencePenalty.isFinite { throw fail("presencePenalty", "\(presencePenalty) is not finite") }
            if let frequencyPenalty, !frequencyPenalty.isFinite { throw fail("frequencyPenalty", "\(frequencyPenalty) is not finite") }
            if let penaltyWindow, penaltyWindow < -1 { throw fail("penaltyWindow", "\(penaltyWindow) is below -1") }
            try validateExtensions(fail)
            if seed == UInt32.max { throw fail("seed", "\(UInt32.max) is reserved by llama.cpp for “random”; pass nil instead") }
            if let (token, bias) = logitBias.first(where: { $0.value.isNaN || Float($0.value) == .infinity }) {
                throw fail("logitBias", "the bias \(bias) for token \(token) is not a number, or beyond Float's range (use -infinity to ban it)")
            }
        }
    }
}
