extension Conversation {
    /// Streams the answer to `prompt` as events: thinking and text deltas, snapshots
    /// when a later parse corrects streamed text, and `.done` with the response last.
    ///
    /// Errors that can be known before generation (a bad option, a prompt that does
    /// not fit, a template failure) end the stream before its first event.
    public nonisolated func streamResponse(to prompt: String, options: CompletionOptions = .init()) -> ResponseStream {
        let flag = CancellationFlag()
        return ResponseStream.start(flag: flag) { emit in
            try await self.serveTurn(prompt, options: options, flag: flag, emit: emit)
        }
    }

    /// Answers `prompt` and returns the whole response.
    /// - Throws: ``LLMKitError/promptTooLong(tokens:limit:)``, ``LLMKitError/invalidOption(name:reason:)``,
    ///   ``LLMKitError/templateFailed(reason:)`` or a decoding error.
    public nonisolated func respond(to prompt: String, options: CompletionOptions = .init()) async throws -> Response {
        try await streamResponse(to: prompt, options: options).result
    }

    /// The user message as the model sees it: with the output format described, when there is one.
    static func userMessage(_ prompt: String, options: CompletionOptions) -> String {
        options.outputFormat.promptDescription.map { "\(prompt)\n\n\($0)" } ?? prompt
    }

    /// One turn, start to end, on the model's thread.
    private func serveTurn(_ prompt: String, options requested: CompletionOptions, flag: CancellationFlag,
                           emit: @escaping @Sendable (ResponseEvent) -> Void) throws -> Response {
        let options = requested.filling(from: model.file.recommendedSampling)
        try options.validate()
        let message = Self.userMessage(prompt, options: options)
        let plan = try planTurn(message, options: options)
        guard plan.fits else {
            throw LLMKitError.promptTooLong(tokens: plan.tokens.count, limit: contextLength - plan.reservedTokens)
        }
        let rendered = plan.rendered
        var runOptions = options
        runOptions.stopSequences += rendered.additionalStopSequences
        let thinking = ThinkingControl(generationPrompt: rendered.generationPrompt, budget: options.thinkingBudget,
                                       startTag: rendered.thinkingStartTag, endTags: rendered.thinkingEndTags,
                                       message: options.thinkingBudgetMessage)
        let run = try CompletionRun(context: inferenceContext(), tokenizer: model.tokenizer, options: runOptions,
                                    promptTokens: plan.tokens, cancellation: flag,
                                    reusesCache: configuration.reusesPromptCache, thinking: thinking)

        var raw = ""
        var tracker = ReplyTracker()
        var thinkingChunks = 0
        let result = try run.execute { chunk in
            raw += chunk
            guard let parsed = try? rendered.render.parse(raw, isPartial: true) else { return }
            if parsed.content.isEmpty && !parsed.reasoningContent.isEmpty { thinkingChunks += 1 }
            tracker.update(to: parsed).forEach(emit)
        }
        let final = (try? rendered.render.parse(raw, isPartial: false))
            ?? (try? rendered.render.parse(raw, isPartial: true)) ?? tracker.reply
        tracker.update(to: final).forEach(emit)

        var statistics = result.statistics
        statistics.thinkingTokens = thinkingChunks
        let response = Response(text: final.content, thinking: final.reasoningContent, rawText: raw,
                                stopReason: result.stopReason, stopSequence: result.stopSequence, seed: result.seed,
                                statistics: statistics, droppedTurns: plan.droppedTurns)
        if result.stopReason != .cancelled {
            transcript = plan.history + [.user(message),
                                         .assistant(final.content, thinking: final.reasoningContent.isEmpty ? nil : final.reasoningContent)]
            turnCount += 1
        }
        emit(.done(response))
        return response
    }
}
