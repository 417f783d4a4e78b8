extension Conversation {
    /// Streams the model's next message after `messages`, a whole chat that the caller keeps
    /// (the way an OpenAI-style client sends one), without running tools.
    ///
    /// This is ``streamResponse(to:attachments:format:options:thinking:toolPolicy:)`` for a chat
    /// you keep yourself: given a `String`, a conversation keeps the transcript and runs tools;
    /// given messages, it keeps nothing.
    ///
    /// The messages follow the conversation's instructions, if it has any; its transcript is
    /// neither read nor changed. The conversation's tools are offered to the model, but a call is
    /// returned, not run: the response then stops with ``StopReason/toolCalls`` and lists the
    /// calls (arguments, no output) in `toolInvocations`; the caller runs them and sends their
    /// results back as `.tool` messages in the next request.
    ///
    /// ```swift
    /// let weather = DynamicTool(name: "get_weather", description: "Current weather",
    ///                           parametersSchema: #"{"type":"object","properties":{"city":{"type":"string"}}}"#) { _ in "" }
    /// let chat = try Conversation(model: model, tools: [weather])
    /// let reply = try await chat.respond(to: [.user("Weather in Paris?")])
    /// for call in reply.toolInvocations { print(call.name, call.arguments) }
    /// ```
    /// - Parameters:
    ///   - messages: the chat so far; the model answers its last message.
    ///   - format: the shape of the answer (enforced while sampling; such answers call no tools).
    ///   - options: length, stop sequences and sampling.
    ///   - thinking: whether the model thinks first, and for how long.
    ///   - toolChoice: which of the conversation's tools the model may call.
    public nonisolated func streamResponse(to messages: [ChatMessage], format: OutputFormat = .text,
                                           options: CompletionOptions = .init(), thinking: Thinking = .disabled,
                                           toolChoice: Conversation.ToolChoice = .auto) -> Conversation.ResponseStream {
        let flag = CancellationFlag()
        let request = TurnRequest.reply(options: options, format: format, thinking: thinking, toolChoice: toolChoice)
        return Conversation.ResponseStream.start(flag: flag) { emit in
            try await self.serveReply(messages, request: request, flag: flag, emit: emit)
        }
    }

    /// The whole reply to `messages` (parameters as in ``streamResponse(to:format:options:thinking:toolChoice:)``).
    /// - Throws: ``LocalModel/Error/promptTooLong(tokens:limit:)``, ``LocalModel/Error/invalidOption(name:reason:)``,
    ///   ``Conversation/Error/invalidToolChoice(reason:)``, ``ChatTemplate/Error/failed(reason:)`` or a format error.
    public nonisolated func respond(to messages: [ChatMessage], format: OutputFormat = .text, options: CompletionOptions = .init(),
                                    thinking: Thinking = .disabled,
                                    toolChoice: Conversation.ToolChoice = .auto) async throws -> ModelResponse<String> {
        try await streamResponse(to: messages, format: format, options: options, thinking: thinking, toolChoice: toolChoice).result
    }

    /// One generation round over the caller's messages, in the conversation's turn order.
    private func serveReply(_ messages: [ChatMessage], request: TurnRequest, flag: CancellationFlag,
                            emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> ModelResponse<String> {
        await turnLock.lock()
        defer { turnLock.unlock() }
        let (response, tokens) = try await round.reply(to: messages, instructions: instructions, request: request,
                                                       firstCallNumber: callCount + 1, flag: flag, emit: emit)
        callCount += response.toolInvocations.count
        cachedTokens = tokens
        return response
    }
}
