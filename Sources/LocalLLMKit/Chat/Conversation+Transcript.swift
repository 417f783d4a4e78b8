extension Conversation {
    /// Creates a conversation that continues `transcript`: history your app stored itself (for
    /// example an earlier ``transcript``, which is `Codable` in OpenAI's message format).
    ///
    /// ```swift
    /// let history = try JSONDecoder().decode([ChatMessage].self, from: Data(contentsOf: url))
    /// let conversation = try Conversation(model: model, transcript: history)
    /// let answer = try await conversation.respond(to: "And what did I ask first?")
    /// ```
    /// A system message at the start is the conversation's instructions. The first turn
    /// evaluates the whole history once; later turns reuse the cache. The transcript is checked
    /// first, and rendered by the template like any other history.
    /// - Throws: ``Conversation/Error/invalidTranscript(index:reason:)`` naming the first message that
    ///   cannot be part of a conversation, or any error of ``init(model:instructions:tools:configuration:)``.
    public init(model: LocalModel, transcript: [ChatMessage], tools: [any ConversationTool] = [],
                configuration: Configuration = .init()) throws {
        try Self.check(transcript)
        let instructions = transcript.first.flatMap { $0.role == .system ? $0.content : nil }
        try self.init(model: model, instructions: instructions, tools: tools, configuration: configuration,
                      transcript: transcript, turnCount: transcript.count { $0.role == .user }, cachedTokens: [])
    }

    /// Checks the shape of a transcript: one system message at most, first; tool results only
    /// after an assistant message that called tools, each answering one of its calls.
    static func check(_ transcript: [ChatMessage]) throws {
        var openCalls: Set<String> = []
        var callsAnswerable = false
        for (index, message) in transcript.enumerated() {
            func fail(_ reason: String) -> Conversation.Error { .invalidTranscript(index: index, reason: reason) }
            switch message.role {
            case .system:
                guard index == 0 else { throw fail("a system message can only come first") }
                callsAnswerable = false
            case .user:
                callsAnswerable = false
            case .assistant:
                openCalls = Set(message.toolCalls.compactMap(\.id))
                callsAnswerable = !message.toolCalls.isEmpty
            case .tool:
                guard callsAnswerable else { throw fail("a tool result must follow an assistant message that called tools") }
                if let id = message.toolCallID, !openCalls.isEmpty, !openCalls.contains(id) {
                    throw fail("it answers the call \(id), which the assistant message before it did not make")
                }
            }
        }
    }
}
