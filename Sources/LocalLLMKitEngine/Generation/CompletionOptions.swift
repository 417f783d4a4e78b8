/// What every request takes: how long the answer may be, where it stops, and how
/// tokens are sampled.
///
/// ```swift
/// let options = CompletionOptions(maximumResponseTokens: 64, sampling: .greedy)
/// ```
public struct CompletionOptions: Sendable, Equatable {
    /// The most tokens to generate; `nil` means until the context is full.
    public var maximumResponseTokens: Int?
    /// Generation stops before the first occurrence of any of these strings,
    /// which never appear in the output.
    public var stopSequences: [String]
    /// How each token is picked.
    public var sampling: Sampling
    /// End generation at the first complete top-level JSON object or array (strings and
    /// escapes respected); the stop reason is then ``StopReason/endOfText``. Useful without a grammar.
    public var stopsAtBalancedJSON: Bool
    /// Whether the request drafts: with its model's speculation
    /// (``LocalModel/Configuration/Serving/speculation``), and with an output format's grammar
    /// (the text the grammar allows next, such as a schema's keys, decoded in one step);
    /// false decodes one token per step. The answer is the same either way; false is for a
    /// request whose drafts would seldom be accepted (high temperature, free text with prompt
    /// lookup), or to compare both ways on one model.
    public var speculates: Bool
    /// Reports each generated token's log-probability (``TokenLogProbability``) with this many
    /// of the likeliest tokens beside it (0 … ``maximumLogProbabilityAlternatives``); nil
    /// reports none. The probabilities are the model's own, before the sampling settings, as
    /// llama-server's `logprobs` are.
    public var logProbabilityAlternatives: Int?
    /// The scale of each of the model's LoRA adapters for this request, one per adapter of
    /// ``LocalModel/Configuration/Weights/adapters`` in that order (0 turns one off); nil: the model's
    /// scales now (``LocalModel/adapterScales``). Requests with other scales than those decoding
    /// take turns with them (llama.cpp applies adapters to a whole batch), and
    /// reuse only cache that was computed with their own scales.
    public var adapterScales: [Float]?

    /// The most alternatives ``logProbabilityAlternatives`` takes (OpenAI's `top_logprobs` limit).
    public static let maximumLogProbabilityAlternatives = 20

    /// Creates options; every argument is optional.
    public init(maximumResponseTokens: Int? = nil, stopSequences: [String] = [], sampling: Sampling = Sampling(),
                stopsAtBalancedJSON: Bool = false, speculates: Bool = true, logProbabilityAlternatives: Int? = nil,
                adapterScales: [Float]? = nil) {
        self.maximumResponseTokens = maximumResponseTokens
        self.stopSequences = stopSequences
        self.sampling = sampling
        self.stopsAtBalancedJSON = stopsAtBalancedJSON
        self.speculates = speculates
        self.logProbabilityAlternatives = logProbabilityAlternatives
        self.adapterScales = adapterScales
    }

    /// Greedy decoding: always the most likely token.
    public static func greedy(maximumResponseTokens: Int? = nil) -> CompletionOptions {
        CompletionOptions(maximumResponseTokens: maximumResponseTokens, sampling: .greedy)
    }

    /// Checks every value, naming the first one that cannot work.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
    public func validate() throws {
        if let maximumResponseTokens, maximumResponseTokens < 1 {
            throw LocalModel.Error.invalidOption(name: "maximumResponseTokens", reason: "\(maximumResponseTokens) is not at least 1")
        }
        if stopSequences.contains(where: \.isEmpty) {
            throw LocalModel.Error.invalidOption(name: "stopSequences", reason: "a stop sequence is empty")
        }
        if let alternatives = logProbabilityAlternatives, !(0...Self.maximumLogProbabilityAlternatives).contains(alternatives) {
            throw LocalModel.Error.invalidOption(name: "logProbabilityAlternatives",
                                                 reason: "\(alternatives) is not in 0…\(Self.maximumLogProbabilityAlternatives)")
        }
        if let scales = adapterScales, let bad = scales.firstIndex(where: { !$0.isFinite }) {
            throw LocalModel.Error.invalidOption(name: "adapterScales[\(bad)]", reason: "\(scales[bad]) is not a finite number")
        }
        try sampling.validate()
    }
}
