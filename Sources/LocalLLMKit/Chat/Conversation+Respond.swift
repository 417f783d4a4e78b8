extension Conversation {
    /// Streams the answer to `prompt` as events: thinking and text deltas, snapshots
    /// when a later parse corrects streamed text, tool calls and their results, and
    /// `.done` with the response last.
    ///
    /// Errors that can be known before generation (a bad option, a prompt that does
    /// not fit, a template failure) end the stream before its first event.
    /// - Parameters:
    ///   - attachments: images (or audio clips) the message carries, for a model with a
    ///     projector; the model sees them before the text.
    ///   - format: the shape of the answer: free text, JSON following a schema, or a grammar
    ///     (described in the prompt and enforced while sampling; such answers use no tools).
    ///   - options: length, stop sequences and sampling.
    ///   - thinking: whether the model thinks first, and for how long.
    ///   - toolPolicy: which tools the model may call, and for how many rounds.
    public nonisolated func streamResponse(to prompt: String, attachments: [MediaAttachment] = [], format: OutputFormat = .text,
                                           options: CompletionOptions = .init(), thinking: Thinking = .disabled,
                                           toolPolicy: ToolPolicy = .init()) -> Conversation.ResponseStream {
        let flag = CancellationFlag()
        let request = TurnRequest(options: options, format: format, thinking: thinking, toolPolicy: toolPolicy)
        return Conversation.ResponseStream.start(flag: flag) { emit in
            try await self.serveTurn(prompt, attachments: attachments, request: request, flag: flag, emit: emit)
        }
    }

    /// Answers `prompt` and returns the whole response (parameters as in
    /// ``streamResponse(to:attachments:format:options:thinking:toolPolicy:)``).
    /// - Throws: ``LocalModel/Error/promptTooLong(tokens:limit:)``, ``LocalModel/Error/invalidOption(name:reason:)``,
    ///   ``LocalModel/Error/noProjector(path:)``, ``MediaAttachment/Error``,
    ///   ``ChatTemplate/Error/failed(reason:)`` or a decoding error.
    public nonisolated func respond(to prompt: String, attachments: [MediaAttachment] = [], format: OutputFormat = .text,
                                    options: CompletionOptions = .init(), thinking: Thinking = .disabled,
                                    toolPolicy: ToolPolicy = .init()) async throws -> ModelResponse<String> {
        try await streamResponse(to: prompt, attachments: attachments, format: format, options: options, thinking: thinking,
                                 toolPolicy: toolPolicy).result
    }

    /// The user message as the model sees it: with the output format described, when there is one.
    static func userMessage(_ prompt: String, format: OutputFormat) -> String {
        format.promptDescription.map { "\(prompt)\n\n\($0)" } ?? prompt
    }

    /// The tool choice of a round: the requested one first, then `auto` (so that the
    /// model can answer once it has what it needed). Structured answers use no tools.
    static func toolChoice(for request: TurnRequest, round: Int) -> Conversation.ToolChoice {
        guard case .text = request.format else { return .none }
        if request.toolPolicy.choice == .none { return .none }
        return round == 0 ? request.toolPolicy.choice : .auto
    }

    /// One turn, start to end: generation rounds on the model's sequences, tool calls between them.
    private func serveTurn(_ prompt: String, attachments: [MediaAttachment], request: TurnRequest, flag: CancellationFlag,
                           emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> ModelResponse<String> {
        await turnLock.lock()
        defer { turnLock.unlock() }
        try request.validate()
        let loop = TurnLoop(request: request, toolBox: toolBox, flag: flag, emit: emit)
        if !attachments.isEmpty && model.projector == nil { throw LocalModel.Error.noProjector(path: model.url.path) }
        return try await loop.run(.user(Self.userMessage(prompt, format: request.format), attachments: attachments)) { pending, choice, round in
            try await generateRound(pending, request: request, toolChoice: choice, number: round, flag: flag, emit: emit)
        } commit: { history, turn in
            commit(history: history, turn)
        }
    }

    /// One round of a turn after the transcript, its tool calls numbered in the conversation.
    private func generateRound(_ pending: [ChatMessage], request: TurnRequest, toolChoice: Conversation.ToolChoice, number: Int,
                               flag: CancellationFlag, emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> RoundResult {
        let result = try await round.run(pending, after: transcript, request: request, toolChoice: toolChoice, round: number,
                                         firstCallNumber: callCount + 1, flag: flag, emit: emit)
        callCount += result.calls.count
        cachedTokens = result.cachedTokens
        return result
    }

    /// Makes a finished turn part of the transcript.
    private func commit(history: [ChatMessage], _ added: [ChatMessage]) {
        transcript = history + added
        turnCount += 1
    }
}
