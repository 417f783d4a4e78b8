extension Conversation {
    /// Streams the answer to `prompt` as events: thinking and text deltas, snapshots
    /// when a later parse corrects streamed text, tool calls and their results, and
    /// `.done` with the response last.
    ///
    /// Errors that can be known before generation (a bad option, a prompt that does
    /// not fit, a template failure) end the stream before its first event.
    /// - Parameters:
    ///   - format: the shape of the answer: free text, JSON following a schema, or a grammar
    ///     (described in the prompt and enforced while sampling; such answers use no tools).
    ///   - options: length, stop sequences and sampling.
    ///   - thinking: whether the model thinks first, and for how long.
    ///   - toolPolicy: which tools the model may call, and for how many rounds.
    public nonisolated func streamResponse(to prompt: String, format: OutputFormat = .text,
                                           options: CompletionOptions = .init(), thinking: Thinking = .disabled,
                                           toolPolicy: ToolPolicy = .init()) -> Conversation.ResponseStream {
        let flag = CancellationFlag()
        let request = TurnRequest(options: options, format: format, thinking: thinking, toolPolicy: toolPolicy)
        return Conversation.ResponseStream.start(flag: flag) { emit in
            try await self.serveTurn(prompt, request: request, flag: flag, emit: emit)
        }
    }

    /// Answers `prompt` and returns the whole response (parameters as in
    /// ``streamResponse(to:format:options:thinking:toolPolicy:)``).
    /// - Throws: ``LocalModel/Error/promptTooLong(tokens:limit:)``, ``LocalModel/Error/invalidOption(name:reason:)``,
    ///   ``ChatTemplate/Error/failed(reason:)`` or a decoding error.
    public nonisolated func respond(to prompt: String, format: OutputFormat = .text, options: CompletionOptions = .init(),
                                    thinking: Thinking = .disabled, toolPolicy: ToolPolicy = .init()) async throws -> ModelResponse<String> {
        try await streamResponse(to: prompt, format: format, options: options, thinking: thinking, toolPolicy: toolPolicy).result
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

    /// One turn, start to end: generation rounds on the model's thread, tool calls between them.
    private func serveTurn(_ prompt: String, request requested: TurnRequest, flag: CancellationFlag,
                           emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> ModelResponse<String> {
        await turnLock.lock()
        defer { turnLock.unlock() }
        var request = requested
        request.options.sampling = request.options.sampling.filling(from: model.file.recommendedSampling)
        try request.validate()
        var pending: [ChatMessage] = [.user(Self.userMessage(prompt, format: request.format))]
        var invocations: [ToolInvocation] = []
        var totals = GenerationStatistics()
        var round = 0
        while true {
            let choice = Self.toolChoice(for: request, round: round)
            let outcome = try await generateRound(pending, request: request, toolChoice: choice, round: round + 1,
                                            flag: flag, emit: emit)
            totals.accumulate(outcome.statistics, first: round == 0)
            let calls = choice == .none ? [] : outcome.calls
            var response = ModelResponse(content: outcome.reply.content, text: outcome.reply.content,
                                         thinking: outcome.reply.reasoningContent, rawText: outcome.rawText,
                                         stopReason: outcome.stopReason, stopSequence: outcome.stopSequence,
                                         seed: outcome.seed, statistics: totals, toolInvocations: invocations,
                                         droppedTurns: outcome.plan.droppedTurns)
            if outcome.stopReason == .cancelled || flag.isRaised {
                response.stopReason = .cancelled
                emit(.done(response))
                return response
            }
            pending.append(.assistant(outcome.reply.content,
                                      thinking: outcome.reply.reasoningContent.isEmpty ? nil : outcome.reply.reasoningContent))
            guard !calls.isEmpty else {
                commit(history: outcome.plan.history, pending)
                emit(.done(response))
                return response
            }
            pending[pending.count - 1].toolCalls = calls.map { ChatMessage.ToolCall(name: $0.name, arguments: $0.arguments,
                                                                                     id: $0.modelCallID ?? $0.id) }
            if round == request.toolPolicy.maximumRounds {
                // The limit is reached: the calls are answered, not run, so the transcript stays well-formed.
                for call in calls {
                    pending.append(.tool(ToolBox.error("not run: the limit of \(request.toolPolicy.maximumRounds) tool rounds was reached"),
                                         callID: call.modelCallID ?? call.id, name: call.name))
                }
                commit(history: outcome.plan.history, pending)
                response.stopReason = .toolRounds
                emit(.done(response))
                return response
            }
            let finished = await run(calls, emit: emit)
            if flag.isRaised {
                response.stopReason = .cancelled
                response.toolInvocations = invocations + finished
                emit(.done(response))
                return response
            }
            invocations += finished
            for call in finished {
                pending.append(.tool(call.output ?? "", callID: call.modelCallID ?? call.id, name: call.name))
            }
            round += 1
        }
    }

    /// Makes a finished turn part of the transcript.
    private func commit(history: [ChatMessage], _ added: [ChatMessage]) {
        transcript = history + added
        turnCount += 1
    }

    /// Runs one round's tool calls concurrently, reporting each start and finish.
    nonisolated func run(_ calls: [ToolInvocation], emit: @escaping @Sendable (Conversation.Event) -> Void) async -> [ToolInvocation] {
        let toolBox = self.toolBox
        return await withTaskGroup(of: (Int, ToolInvocation).self) { group in
            for (index, call) in calls.enumerated() {
                emit(.toolCallStarted(call))
                group.addTask {
                    var finished = call
                    (finished.output, finished.isError) = await toolBox.run(name: call.name, arguments: call.arguments)
                    emit(.toolCallFinished(finished))
                    return (index, finished)
                }
            }
            var results = calls
            for await (index, finished) in group { results[index] = finished }
            return results
        }
    }
}
