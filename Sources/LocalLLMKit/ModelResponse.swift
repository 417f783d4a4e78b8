/// A model's answer: its content (the text, or a value decoded from the JSON the model wrote),
/// how generation ended, and what it cost. Completions, conversation turns and structured
/// answers all return one.
///
/// ```swift
/// let reply: ModelResponse<String> = try await conversation.respond(to: "Hi!")
/// print(reply.content, reply.stopReason, reply.statistics.generationTokensPerSecond)
/// ```
public struct ModelResponse<Content: Sendable>: Sendable {
    /// The answer: the text for ``String`` responses, or the decoded value.
    public var content: Content
    /// The answer text, without thinking (for a structured answer, its JSON).
    public var text: String
    /// The thinking, split out by the template's parser (empty when there was none).
    public var thinking: String
    /// Everything the model generated, before parsing.
    public var rawText: String
    /// Why generation stopped.
    public var stopReason: StopReason
    /// The stop sequence that ended generation, when ``stopReason`` is ``StopReason/stopSequence``.
    public var stopSequence: String?
    /// The sampling seed that was used.
    public var seed: UInt32
    /// Token counts (including tokens reused from the cache) and timings.
    public var statistics: GenerationStatistics
    /// The generated token ids, in order (completions; empty for conversation turns, whose
    /// tokens span several rounds).
    public var tokens: [LocalModel.Token]
    /// The tool calls of this turn, with their outputs, in order (conversations).
    public var toolInvocations: [ToolInvocation]
    /// Turns dropped from the transcript to make room (``Conversation/OverflowPolicy/dropOldestTurns``).
    public var droppedTurns: Int
    /// Each generated token's log-probability and likeliest alternatives, in order, when
    /// ``CompletionOptions/logProbabilityAlternatives`` asked for them (all rounds of a turn
    /// with tool calls); empty otherwise.
    public var logProbabilities: [TokenLogProbability] = []

    /// A response that a backend of your own made (see ``ModelBackend``): its content, the text it
    /// came from, and how generation ended.
    public init(content: Content, text: String, stopReason: StopReason = .endOfText,
                statistics: GenerationStatistics = .init()) {
        self.init(content: content, text: text, rawText: text, stopReason: stopReason, stopSequence: nil, seed: 0,
                  statistics: statistics)
    }

    /// A response whose parts are all given.
    init(content: Content, text: String, thinking: String = "", rawText: String, stopReason: StopReason,
         stopSequence: String?, seed: UInt32, statistics: GenerationStatistics, tokens: [LocalModel.Token] = [],
         toolInvocations: [ToolInvocation] = [], droppedTurns: Int = 0) {
        self.content = content
        self.text = text
        self.thinking = thinking
        self.rawText = rawText
        self.stopReason = stopReason
        self.stopSequence = stopSequence
        self.seed = seed
        self.statistics = statistics
        self.tokens = tokens
        self.toolInvocations = toolInvocations
        self.droppedTurns = droppedTurns
    }

    /// The same response with another content (a value decoded from ``text``).
    func replacingContent<Other>(with content: Other) -> ModelResponse<Other> {
        ModelResponse<Other>(content: content, text: text, thinking: thinking, rawText: rawText, stopReason: stopReason,
                             stopSequence: stopSequence, seed: seed, statistics: statistics, tokens: tokens,
                             toolInvocations: toolInvocations, droppedTurns: droppedTurns)
            .withLogProbabilities(logProbabilities)
    }

    /// The same response with these log-probabilities.
    func withLogProbabilities(_ logProbabilities: [TokenLogProbability]) -> ModelResponse {
        var copy = self
        copy.logProbabilities = logProbabilities
        return copy
    }
}

extension ModelResponse: Equatable where Content: Equatable {}

extension ModelResponse where Content == String {
    /// A completion's response: its text is its content.
    init(_ outcome: GenerationOutcome) {
        self.init(content: outcome.text, text: outcome.text, rawText: outcome.text, stopReason: outcome.stopReason,
                  stopSequence: outcome.stopSequence, seed: outcome.seed, statistics: outcome.statistics,
                  tokens: outcome.tokens)
        logProbabilities = outcome.logProbabilities
    }
}
