extension Conversation {
    /// A conversation with a model wherever it runs: ``Conversation`` (in this process) and
    /// ``RemoteConversation`` (on a server) both are one, with the same events and responses,
    /// so that code written against this protocol (the Assistant's backends, an app's chat view)
    /// works with either.
    ///
    /// ```swift
    /// func ask(_ conversation: any Conversation.Responding) async throws -> String {
    ///     try await conversation.respond(to: "Name a prime number.").content
    /// }
    /// ```
    public protocol Responding: Actor {
        /// The instructions (system message) given at creation, if any.
        nonisolated var instructions: String? { get }
        /// The tools the model may call; they run in this process.
        nonisolated var tools: [any ConversationTool] { get }
        /// The messages the model sees: the instructions, then every completed turn.
        var transcript: [ChatMessage] { get }
        /// How many turns have completed since creation (or the last ``reset()``).
        var turnCount: Int { get }

        /// Forgets every turn (keeping the instructions), after the turn in progress, if any.
        func reset() async

        /// Streams the answer to `prompt`: thinking and text deltas, tool calls and their results,
        /// and `.done` with the response last, exactly once.
        /// - Parameters:
        ///   - format: free text or JSON following a schema (each conversation says which others it takes).
        ///   - options: length, stop sequences and sampling.
        ///   - thinking: whether the model thinks first; `nil` leaves it to the model's (or server's) default.
        ///   - toolPolicy: which tools the model may call, and for how many rounds.
        nonisolated func streamResponse(to prompt: String, format: OutputFormat, options: CompletionOptions,
                                        thinking: Conversation.Thinking?, toolPolicy: Conversation.ToolPolicy)
            -> Conversation.ResponseStream
    }
}

extension Conversation.Responding {
    /// Answers `prompt` and returns the whole response: the stream's result.
    /// - Throws: what ``streamResponse(to:format:options:thinking:toolPolicy:)`` ends with.
    public nonisolated func respond(to prompt: String, format: OutputFormat = .text, options: CompletionOptions = .init(),
                                    thinking: Conversation.Thinking? = nil,
                                    toolPolicy: Conversation.ToolPolicy = .init()) async throws -> ModelResponse<String> {
        try await streamResponse(to: prompt, format: format, options: options, thinking: thinking, toolPolicy: toolPolicy).result
    }

    /// Answers `prompt` with a value of type `T`: the schema derived from `T` is described in the
    /// prompt and enforced (by a grammar on a local model, by `response_format` on a server).
    ///
    /// ```swift
    /// struct Verdict: Decodable, Sendable { var approved: Bool; var reason: String }
    /// let server = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")
    /// let verdict = try await RemoteConversation(model: server).respond(to: scannedText, generating: Verdict.self).content
    /// ```
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` before any generation for a
    ///   type that cannot be described; ``OutputFormat/Error/incompleteOutput(raw:stopReason:)`` when
    ///   the token limit cut the JSON short; ``OutputFormat/Error/invalidOutput(raw:reason:)`` when
    ///   the answer does not decode; what the conversation throws otherwise.
    public nonisolated func respond<T: Decodable & Sendable>(to prompt: String, generating type: T.Type,
                                                             options: CompletionOptions = .init()) async throws -> ModelResponse<T> {
        try await respond(to: prompt, format: .schema(try OutputSchema(deriving: T.self)), options: options).decoded(as: T.self)
    }
}

extension Conversation: Conversation.Responding {
    /// Streams the answer to `prompt` (as
    /// ``streamResponse(to:attachments:format:options:thinking:toolPolicy:)`` with no attachments);
    /// `nil` thinking is ``Thinking/disabled``.
    public nonisolated func streamResponse(to prompt: String, format: OutputFormat, options: CompletionOptions,
                                           thinking: Thinking?, toolPolicy: ToolPolicy) -> ResponseStream {
        streamResponse(to: prompt, attachments: [], format: format, options: options, thinking: thinking ?? .disabled,
                       toolPolicy: toolPolicy)
    }
}

extension RemoteConversation: Conversation.Responding {}
