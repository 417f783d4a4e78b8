import Foundation

/// A multi-turn conversation with a model, through its chat template.
///
/// ```swift
/// let conversation = try Conversation(model: model, instructions: "You are a helpful assistant.")
/// let reply = try await conversation.respond(to: "Hi!")
/// print(reply.text)
///
/// for try await event in conversation.streamResponse(to: "Explain KV caches", thinking: .enabled()) {
///     switch event {
///     case .thinking(let delta): print(delta, terminator: "")
///     case .text(let delta): print(delta, terminator: "")
///     case .snapshot(let text, _): print("\n[corrected] \(text)")   // a later parse rewrote streamed text
///     case .toolCallDelta: break                                   // a call as the model writes it
///     case .logProbability: break                                  // only with logProbabilityAlternatives
///     case .toolCallStarted(let call): print("\n→ \(call.name)")    // only with tools
///     case .toolCallFinished(let call): print("← \(call.output ?? "")")
///     case .done(let response): print("\n", response.stopReason)
///     }
/// }
/// try await conversation.save(to: url)       // and Conversation(restoringFrom: url, model: model)
/// ```
///
/// A conversation keeps its transcript; its turns generate on one of the model's sequences
/// (``LocalModel/Configuration/Serving/parallelSequences``), alongside other conversations and
/// completions, so conversations cost no memory of their own. A new turn evaluates only the
/// tokens after the longest prefix already in the model's cache (usually its own previous
/// turn). The turns of one conversation run one at a time, in order. A cancelled or failed
/// turn leaves the transcript as it was.
public actor Conversation {
    /// The model.
    public nonisolated let model: LocalModel
    /// The instructions (system message) given at creation, if any.
    public nonisolated let instructions: String?
    /// The tools the model may call.
    public nonisolated var tools: [any ConversationTool] { round.tools }
    /// Settings fixed at creation.
    public nonisolated let configuration: Configuration
    /// The chat template in use.
    public nonisolated var template: ChatTemplate { round.template }
    /// The context length in tokens.
    public nonisolated var contextLength: Int { round.contextLength }

    /// The messages the model sees: the instructions, then every completed turn
    /// (minus turns dropped by ``OverflowPolicy/dropOldestTurns``).
    public internal(set) var transcript: [ChatMessage]
    /// How many turns have completed since creation (or the last ``reset()``).
    public internal(set) var turnCount = 0

    /// The tokens this conversation's last round left in the model's cache (prompt and answer).
    var cachedTokens: [Int32]
    /// Renders, plans and runs each round; the conversation adds the transcript and the turn order.
    nonisolated let round: ChatRound
    nonisolated var toolBox: ToolBox { round.toolBox }
    /// Serializes turns across the suspension points where tools run.
    nonisolated let turnLock = AsyncLock()
    /// Numbers the tool calls of this conversation (`call-1`, `call-2`, …).
    var callCount = 0

    /// Starts a conversation.
    /// - Parameters:
    ///   - model: the model.
    ///   - instructions: a system message that frames the conversation.
    ///   - tools: tools the model may call (only these can run).
    ///   - configuration: template override, context length, overflow policy.
    /// - Throws: ``ChatTemplate/Error/failed(reason:)`` when the template cannot be loaded,
    ///   ``ChatTemplate/Error/boundExceeded(_:reason:)`` when it exceeds a bound,
    ///   ``ChatTemplate/Error/toolsUnsupported(template:)`` when tools are given and the template cannot
    ///   render them, ``Conversation/Error/invalidTool(name:reason:)``, or
    ///   ``Conversation/Error/invalidConfiguration(name:reason:)`` for a bad configuration.
    public init(model: LocalModel, instructions: String? = nil, tools: [any ConversationTool] = [],
                configuration: Configuration = .init()) throws {
        try self.init(model: model, instructions: instructions, tools: tools, configuration: configuration,
                      transcript: instructions.map { [.system($0)] } ?? [], turnCount: 0, cachedTokens: [])
    }

    /// Creates a conversation in a given state (new, or restored from a file, whose template
    /// is already built).
    init(model: LocalModel, instructions: String?, tools: [any ConversationTool] = [], configuration: Configuration,
         template: ChatTemplate? = nil, transcript: [ChatMessage], turnCount: Int, cachedTokens: [Int32]) throws {
        let template = try template ?? Self.makeTemplate(model: model, configuration: configuration)
        self.round = try ChatRound(model: model, template: template, toolBox: try ToolBox(tools),
                                   contextLength: configuration.contextLength ?? model.contextLength,
                                   overflowPolicy: configuration.overflowPolicy, templateArguments: configuration.templateArguments,
                                   reusesPromptCache: configuration.reusesPromptCache)
        if let cap = configuration.contextLength, cap > model.contextLength {
            throw Conversation.Error.invalidConfiguration(
                name: "contextLength", reason: "\(cap) is more than the model's context length, \(model.contextLength)")
        }
        self.model = model
        self.instructions = instructions
        self.configuration = configuration
        self.transcript = transcript
        self.turnCount = turnCount
        self.cachedTokens = cachedTokens
    }

    /// The checked configuration's template, with its arguments checked against it.
    static func makeTemplate(model: LocalModel, configuration: Configuration) throws -> ChatTemplate {
        try configuration.validate()
        let template = try configuration.chatTemplate.map { try ChatTemplate(model: model, override: $0) }
            ?? ChatTemplate(model: model)
        try template.check(configuration.templateArguments)
        return template
    }

    /// Forgets every turn (keeping the instructions), after the turn in progress, if any.
    public func reset() async {
        await turnLock.lock()
        defer { turnLock.unlock() }
        transcript = instructions.map { [.system($0)] } ?? []
        turnCount = 0
        cachedTokens = []
    }
}
