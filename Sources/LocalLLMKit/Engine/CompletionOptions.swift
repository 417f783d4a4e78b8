/// How to generate: length, stop sequences and sampling.
///
/// Every sampling field is optional. A field left `nil` takes the model's own
/// recommendation (its `general.sampling.*` metadata) when it has one, and
/// llama.cpp's default otherwise (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05,
/// no penalties).
///
/// ```swift
/// let options = CompletionOptions(maximumTokens: 64, temperature: 0)   // greedy
/// ```
public struct CompletionOptions: Sendable, Equatable {
    /// The most tokens to generate; `nil` means until the context is full.
    public var maximumTokens: Int?
    /// Softmax temperature; 0 picks the most likely token every time (greedy).
    public var temperature: Double?
    /// Keep only the `topK` most likely tokens; 0 keeps the whole vocabulary.
    public var topK: Int?
    /// Keep the smallest set of tokens whose probabilities add up to `topP` (0 < p ≤ 1).
    public var topP: Double?
    /// Drop tokens less likely than `minP` times the most likely one (0 ≤ p ≤ 1).
    public var minP: Double?
    /// Divides the logit of every recently seen token (1 = off).
    public var repetitionPenalty: Double?
    /// Subtracted from the logit of every recently seen token (0 = off).
    public var presencePenalty: Double?
    /// Subtracted once per earlier occurrence of a recently seen token (0 = off).
    public var frequencyPenalty: Double?
    /// How many recent tokens the penalties look at; -1 means the whole context.
    public var penaltyWindow: Int?
    /// The random seed. The same seed, options, model and prompt give the same output.
    /// `nil` picks a random seed, reported in ``CompletionResult/seed``.
    public var seed: UInt32?
    /// Generation stops before the first occurrence of any of these strings,
    /// which never appear in the output.
    public var stopSequences: [String]
    /// Added to the logits of these tokens before sampling; `-Double.infinity` bans a token.
    public var logitBias: [LocalModel.Token: Double]
    /// The shape the output must take: free text, JSON following a schema, or a grammar.
    /// Schemas and grammars are enforced while sampling.
    public var outputFormat: OutputFormat
    /// End generation at the first complete top-level JSON object or array (strings and
    /// escapes respected); the stop reason is then ``StopReason/endOfText``. Useful without a grammar.
    public var stopsAtBalancedJSON: Bool
    /// Conversations with tools: which tools the model may call (``ToolChoice/auto`` by default).
    public var toolChoice: ToolChoice
    /// Conversations with tools: the most rounds of tool calls in one turn before the
    /// turn ends with ``StopReason/toolRounds``.
    public var maximumToolRounds: Int
    /// Conversations: ask the template for a thinking phase (`enable_thinking`). Off by default.
    public var enableThinking: Bool
    /// Conversations: the most tokens the model may think before the end-of-thinking tag
    /// is forced; `nil` means no cap, 0 closes the thinking block at once.
    public var thinkingBudget: Int?
    /// Conversations: text inserted before the forced end-of-thinking tag, e.g.
    /// "Time is up, answering now." (the model reads it as its own thought).
    public var thinkingBudgetMessage: String?

    /// Creates options; every argument is optional.
    public init(
        maximumTokens: Int? = nil,
        temperature: Double? = nil,
        topK: Int? = nil,
        topP: Double? = nil,
        minP: Double? = nil,
        repetitionPenalty: Double? = nil,
        presencePenalty: Double? = nil,
        frequencyPenalty: Double? = nil,
        penaltyWindow: Int? = nil,
        seed: UInt32? = nil,
        stopSequences: [String] = [],
        logitBias: [LocalModel.Token: Double] = [:],
        outputFormat: OutputFormat = .text,
        stopsAtBalancedJSON: Bool = false,
        toolChoice: ToolChoice = .auto,
        maximumToolRounds: Int = 4,
        enableThinking: Bool = false,
        thinkingBudget: Int? = nil,
        thinkingBudgetMessage: String? = nil
    ) {
        self.maximumTokens = maximumTokens
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.minP = minP
        self.repetitionPenalty = repetitionPenalty
        self.presencePenalty = presencePenalty
        self.frequencyPenalty = frequencyPenalty
        self.penaltyWindow = penaltyWindow
        self.seed = seed
        self.stopSequences = stopSequences
        self.logitBias = logitBias
        self.outputFormat = outputFormat
        self.stopsAtBalancedJSON = stopsAtBalancedJSON
        self.toolChoice = toolChoice
        self.maximumToolRounds = maximumToolRounds
        self.enableThinking = enableThinking
        self.thinkingBudget = thinkingBudget
        self.thinkingBudgetMessage = thinkingBudgetMessage
    }

    /// Greedy decoding: always the most likely token.
    public static func greedy(maximumTokens: Int? = nil) -> CompletionOptions {
        CompletionOptions(maximumTokens: maximumTokens, temperature: 0)
    }

    /// These options, with every `nil` sampling field filled from `defaults`.
    public func filling(from defaults: CompletionOptions) -> CompletionOptions {
        var merged = self
        merged.temperature = temperature ?? defaults.temperature
        merged.topK = topK ?? defaults.topK
        merged.topP = topP ?? defaults.topP
        merged.minP = minP ?? defaults.minP
        merged.repetitionPenalty = repetitionPenalty ?? defaults.repetitionPenalty
        merged.presencePenalty = presencePenalty ?? defaults.presencePenalty
        merged.frequencyPenalty = frequencyPenalty ?? defaults.frequencyPenalty
        merged.penaltyWindow = penaltyWindow ?? defaults.penaltyWindow
        return merged
    }

    /// Checks every value, naming the first one that cannot work.
    /// - Throws: ``LLMKitError/invalidOption(name:reason:)``.
    public func validate() throws {
        func fail(_ name: String, _ reason: String) -> LLMKitError { .invalidOption(name: name, reason: reason) }
        if let maximumTokens, maximumTokens < 1 { throw fail("maximumTokens", "\(maximumTokens) is not at least 1") }
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
        if seed == UInt32.max { throw fail("seed", "\(UInt32.max) is reserved by llama.cpp for “random”; pass nil instead") }
        if stopSequences.contains(where: \.isEmpty) { throw fail("stopSequences", "a stop sequence is empty") }
        if let (token, bias) = logitBias.first(where: { $0.value.isNaN || Float($0.value) == .infinity }) {
            throw fail("logitBias", "the bias \(bias) for token \(token) is not a number, or beyond Float's range (use -infinity to ban it)")
        }
        if maximumToolRounds < 0 { throw fail("maximumToolRounds", "\(maximumToolRounds) is negative") }
        if let thinkingBudget, thinkingBudget < 0 { throw fail("thinkingBudget", "\(thinkingBudget) is negative") }
    }
}
