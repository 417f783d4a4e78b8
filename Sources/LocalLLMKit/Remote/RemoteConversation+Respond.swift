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

    /// One turn, start to end: requests to the server, tool calls between them.
    private func serveTurn(_ prompt: String, request: TurnRequest, thinking: Conversation.Thinking?, flag: CancellationFlag,
                           emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> ModelResponse<String> {
        await turnLock.lock()
        defer { turnLock.unlock() }
        try request.validate()
        _ = try ChatCompletionBody.ResponseFormat(request.format)           // a bad schema fails here, before any request
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
