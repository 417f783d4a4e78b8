/// A multi-turn conversation with a ``RemoteModel``: the same calls, events and responses as a
/// local ``Conversation``, so that an app can switch between a model in the process and one on
/// a server.
///
/// ```swift
/// let server = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")
/// let conversation = try RemoteConversation(model: server, instructions: "You are a helpful assistant.")
/// for try await event in conversation.streamResponse(to: "Explain KV caches") {
///     switch event {
///     case .thinking(let delta): print(delta, terminator: "")     // `reasoning_content`
///     case .text(let delta): print(delta, terminator: "")
///     case .snapshot(let text, _): print("\n[corrected] \(text)")
///     case .toolCallDelta, .logProbability: break
///     case .toolCallStarted(let call): print("\n→ \(call.name)")
///     case .toolCallFinished(let call): print("← \(call.output ?? "")")
///     case .done(let response): print("\n", response.stopReason, response.statistics.timeToFirstToken)
///     }
/// }
/// ```
///
/// The server renders the template, samples and parses the answer; the conversation keeps the
/// transcript and sends all of it with every request (`POST /chat/completions`, streamed).
/// Tools run here, in this process, exactly as in a local conversation: the model's calls come
/// back, their results go in the next request. The turns of one conversation run one at a
/// time, in order. A cancelled or failed turn leaves the transcript as it was; cancelling
/// closes the connection, which makes a server stop generating.
public actor RemoteConversation {
    /// The server and model.
    public nonisolated let model: RemoteModel
    /// The instructions (system message) given at creation, if any.
    public nonisolated let instructions: String?
    /// The tools the model may call; they run in this process.
    public nonisolated var tools: [any ConversationTool] { toolBox.tools }

    /// The messages sent to the server: the instructions, then every completed turn.
    public internal(set) var transcript: [ChatMessage]
    /// How many turns have completed since creation (or the last ``reset()``).
    public internal(set) var turnCount = 0

    nonisolated let toolBox: ToolBox
    /// Serializes turns across the suspension points of requests and tools.
    nonisolated let turnLock = AsyncLock()
    /// Numbers the tool calls of this conversation (`call-1`, `call-2`, …).
    var callCount = 0

    /// Starts a conversation with a served model.
    /// - Parameters:
    ///   - model: the server and model.
    ///   - instructions: a system message that frames the conversation.
    ///   - tools: tools the model may call (only these can run; they run in this process).
    /// - Throws: ``Conversation/Error/invalidTool(name:reason:)`` for a tool with a bad name or schema.
    public init(model: RemoteModel, instructions: String? = nil, tools: [any ConversationTool] = []) throws {
        self.model = model
        self.instructions = instructions
        self.toolBox = try ToolBox(tools)
        self.transcript = instructions.map { [.system($0)] } ?? []
    }

    /// Creates a conversation that continues `transcript` (for example a local conversation's
    /// ``Conversation/transcript``); a system message at the start is the instructions.
    ///
    /// ```swift
    /// let server = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")
    /// let remote = try RemoteConversation(model: server, transcript: await conversation.transcript)
    /// ```
    /// - Throws: ``Conversation/Error/invalidTranscript(index:reason:)`` naming the first message
    ///   that cannot be part of a conversation, or ``Conversation/Error/invalidTool(name:reason:)``.
    public init(model: RemoteModel, transcript: [ChatMessage], tools: [any ConversationTool] = []) throws {
        try Conversation.check(transcript)
        self.model = model
        self.instructions = transcript.first.flatMap { $0.role == .system ? $0.content : nil }
        self.toolBox = try ToolBox(tools)
        self.transcript = transcript
        self.turnCount = transcript.count { $0.role == .user }
    }

    /// Forgets every turn (keeping the instructions), after the turn in progress, if any.
    public func reset() async {
        await turnLock.lock()
        defer { turnLock.unlock() }
        transcript = instructions.map { [.system($0)] } ?? []
        turnCount = 0
    }

    /// Makes a finished turn part of the transcript.
    func commit(_ added: [ChatMessage]) {
        transcript += added
        turnCount += 1
    }

    /// Gives the round's calls the conversation's ids (`call-N`).
    func number(_ calls: [RemoteReply.Call], round: Int) -> [ToolInvocation] {
        calls.map { call in
            callCount += 1
            return ToolInvocation(id: "call-\(callCount)", modelCallID: call.id, name: call.name, arguments: call.arguments,
                                  round: round, phase: .answer, output: nil, isError: false)
        }
    }
}
