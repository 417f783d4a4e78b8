extension ChatRound {
    /// Streams the model's next message after `messages`, a whole chat that the caller keeps (as
    /// an OpenAI-style client sends one), after `instructions` if any; a tool call is returned,
    /// not run. This is ``Conversation/streamResponse(to:format:options:thinking:toolChoice:)``
    /// without a conversation: what a server runs per request.
    package func streamResponse(to messages: [ChatMessage], instructions: String? = nil, format: OutputFormat = .text,
                                options: CompletionOptions = .init(), thinking: Conversation.Thinking = .disabled,
                                toolChoice: Conversation.ToolChoice = .auto) -> Conversation.ResponseStream {
        let flag = CancellationFlag()
        let request = TurnRequest.reply(options: options, format: format, thinking: thinking, toolChoice: toolChoice)
        return Conversation.ResponseStream.start(flag: flag) { emit in
            try await reply(to: messages, instructions: instructions, request: request, flag: flag, emit: emit).response
        }
    }

    /// One generation round over the caller's messages, ending with `.done`.
    /// - Parameter firstCallNumber: the number of the first tool call (`call-N`).
    /// - Returns: the response, and the tokens the round left in the model's cache.
    func reply(to messages: [ChatMessage], instructions: String?, request: TurnRequest, firstCallNumber: Int = 1,
               flag: CancellationFlag,
               emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> (response: ModelResponse<String>, cachedTokens: [Int32]) {
        try request.validate()
        guard !messages.isEmpty else {
            throw LocalModel.Error.invalidOption(name: "messages", reason: "there must be at least one message")
        }
        let choice = Conversation.toolChoice(for: request, round: 0)
        let outcome = try await run(messages, after: instructions.map { [.system($0)] } ?? [], request: request,
                                    toolChoice: choice, round: 1, firstCallNumber: firstCallNumber, flag: flag, emit: emit)
        let calls = choice == .none ? [] : outcome.calls
        var stopReason = outcome.stopReason
        if flag.isRaised { stopReason = .cancelled } else if !calls.isEmpty { stopReason = .toolCalls }
        var response = ModelResponse(content: outcome.content, text: outcome.content, thinking: outcome.thinking,
                                     rawText: outcome.rawText, stopReason: stopReason, stopSequence: outcome.stopSequence,
                                     seed: outcome.seed, statistics: outcome.statistics, toolInvocations: calls,
                                     droppedTurns: outcome.droppedTurns)
        response.logProbabilities = outcome.logProbabilities
        emit(.done(response))
        return (response, outcome.cachedTokens)
    }

    /// The prompt text that ``streamResponse(to:instructions:format:options:thinking:toolChoice:)``
    /// would evaluate for `messages`, as llama-server's `/apply-template` shows it. Older turns
    /// are dropped as a reply would drop them.
    package func replyPrompt(for messages: [ChatMessage], instructions: String? = nil, thinking: Conversation.Thinking = .disabled,
                             toolChoice: Conversation.ToolChoice = .auto) async throws -> String {
        let request = TurnRequest.reply(thinking: thinking, toolChoice: toolChoice)
        try request.validate()
        let plan = try await plan(messages, after: instructions.map { [.system($0)] } ?? [], request: request,
                                  toolChoice: Conversation.toolChoice(for: request, round: 0))
        return plan.rendered.text
    }
}
