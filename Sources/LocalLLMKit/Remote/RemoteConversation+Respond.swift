extension RemoteConversation {
    /// Streams the answer to `prompt` as events: thinking and text deltas, tool calls and their
    /// results, and `.done` with the response last, exactly once (as
    /// ``Conversation/streamResponse(to:attachments:format:options:thinking:toolPolicy:)`` does).
    ///
    /// Errors that can be known before a request (a bad option, a grammar format, a tool choice
    /// naming no tool) end the stream before its first event. Breaking out of the loop or
    /// cancelling the task closes the connection; the response then reports ``StopReason/cancelled``.
    /// - Parameters:
    ///   - format: free text, or JSON following a schema (sent as `response_format`; the schema
    ///     is also described in the prompt). A GBNF grammar cannot be sent.
    ///   - options: length, stop sequences and sampling; fields left `nil` take the server's defaults.
    ///   - thinking: `nil` leaves thinking to the server; `.disabled` or `.enabled(budget:)` ask for
    ///     it through `chat_template_kwargs.enable_thinking` (and `thinking_budget_tokens`), which
    ///     llama-server and vLLM read; OpenAI's own API refuses such fields.
    ///   - toolPolicy: which tools the model may call, and for how many rounds.
    public nonisolated func streamResponse(to prompt: String, format: OutputFormat = .text,
                                           options: CompletionOptions = .init(), thinking: Conversation.Thinking? = nil,
                                           toolPolicy: Conversation.ToolPolicy = .init()) -> Conversation.ResponseStream {
        let flag = CancellationFlag()
        let request = TurnRequest(options: options, format: format, thinking: thinking ?? .disabled, toolPolicy: toolPolicy)
        return Conversation.ResponseStream.start(flag: flag) { emit in
            try await self.serveTurn(prompt, request: request, thinking: thinking, flag: flag, emit: emit)
        }
    }

    /// Answers `prompt` and returns the whole response (parameters as in
    /// ``streamResponse(to:format:options:thinking:toolPolicy:)``).
    /// - Throws: a ``RemoteModel/Error`` (``RemoteModel/Error/unauthorized(message:)``,
    ///   ``RemoteModel/Error/timedOut(after:)``, …), ``LocalModel/Error/invalidOption(name:reason:)``
    ///   or ``Conversation/Error/invalidToolChoice(reason:)``.
    public nonisolated func respond(to prompt: String, format: OutputFormat = .text, options: CompletionOptions = .init(),
                                    thinking: Conversation.Thinking? = nil,
                                    toolPolicy: Conversation.ToolPolicy = .init()) async throws -> ModelResponse<String> {
        try await streamResponse(to: prompt, format: format, options: options, thinking: thinking, toolPolicy: toolPolicy).result
    }

    /// Answers `prompt` with a value of type `T`: the schema derived from `T` is described in
    /// the prompt and sent as `response_format` (`json_schema`, strict), so a server that
    /// enforces schemas (llama-server does, with a grammar) always returns JSON that decodes.
    ///
    /// ```swift
    /// struct Verdict: Decodable, Sendable { var approved: Bool; var reason: String }
    /// let server = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")
    /// let verdict = try await RemoteConversation(model: server).respond(to: scannedText, generating: Verdict.self).content
    /// ```
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` before any request for a type
    ///   that cannot be described; ``OutputFormat/Error/incompleteOutput(raw:stopReason:)`` when the
    ///   token limit cut the JSON short; ``OutputFormat/Error/invalidOutput(raw:reason:)`` when the
    ///   server did not keep to the schema; a ``RemoteModel/Error``.
    public nonisolated func respond<T: Decodable & Sendable>(to prompt: String, generating type: T.Type,
                                                             options: CompletionOptions = .init()) async throws -> ModelResponse<T> {
        let response = try await respond(to: prompt, format: .schema(try OutputSchema(deriving: T.self)), options: options)
        return response.replacingContent(with: try StructuredDecoding.decode(T.self, from: response.text,
                                                                              stopReason: response.stopReason))
    }

    /// One turn, start to end: requests to the server, tool calls between them.
    private func serveTurn(_ prompt: String, request: TurnRequest, thinking: Conversation.Thinking?, flag: CancellationFlag,
                           emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> ModelResponse<String> {
        await turnLock.lock()
        defer { turnLock.unlock() }
        try request.validate()
        _ = try RemoteChatRequest.responseFormat(request.format)           // a bad schema fails here, before any request
        if request.toolPolicy.choice != .none, case .text = request.format { _ = try toolBox.offer(request.toolPolicy.choice) }
        let round = RemoteRound(model: model, toolBox: toolBox, request: request, thinking: thinking,
                                seed: request.options.sampling.seed ?? UInt32.random(in: 0..<UInt32.max), flag: flag, emit: emit)
        let loop = TurnLoop(request: request, toolBox: toolBox, flag: flag, emit: emit)
        return try await loop.run(.user(Conversation.userMessage(prompt, format: request.format))) { pending, choice, index in
            var (result, calls) = try await round.run(transcript + pending, choice: choice)
            result.calls = number(calls, round: index)
            return result
        } commit: { _, turn in
            commit(turn)
        }
    }
}
