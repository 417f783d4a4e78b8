extension LocalModel {
    /// A stream of generated text chunks, with the final ``ModelResponse`` at the end.
    public typealias CompletionStream = GenerationStream<String, ModelResponse<String>>

    /// Streams a continuation of `prompt`, taken as plain text (no chat template).
    ///
    /// ```swift
    /// let stream = model.streamCompletion("Once upon a time", options: .init(maximumResponseTokens: 64))
    /// for try await chunk in stream { print(chunk, terminator: "") }
    /// print(try await stream.result.stopReason)
    /// ```
    /// Special-token texts in `prompt` (such as `<eos>`) stay plain text. `format` constrains the
    /// output (a JSON Schema or a grammar, enforced while sampling).
    /// Errors (an invalid option, ``LocalModel/Error/promptTooLong(tokens:limit:)``, an invalid
    /// schema) are thrown by the stream before its first chunk.
    public nonisolated func streamCompletion(_ prompt: String, format: OutputFormat = .text,
                                             options: CompletionOptions = .init()) -> CompletionStream {
        makeStream(.text(prompt), format: format, options: options, reusesCache: true)
    }

    /// Streams a continuation of `prompt` that evaluates the whole prompt again when
    /// `reusesCache` is false (llama-server's `cache_prompt`), so that a seed reproduces a text
    /// whatever the cache held.
    package nonisolated func streamCompletion(_ prompt: String, format: OutputFormat = .text, options: CompletionOptions,
                                              reusesCache: Bool) -> CompletionStream {
        makeStream(.text(prompt), format: format, options: options, reusesCache: reusesCache)
    }

    /// Streams a continuation of `prompt` as events: text, each generated token's
    /// log-probability as it is sampled (when the options ask for them), then the response. The
    /// server's streamed text completions send each token's entry with the text it belongs to.
    package nonisolated func streamCompletionEvents(_ prompt: String, format: OutputFormat = .text, options: CompletionOptions,
                                                    reusesCache: Bool) -> GenerationStream<Conversation.Event, ModelResponse<String>> {
        let flag = CancellationFlag()
        return GenerationStream.start(flag: flag) { emit in
            let response = try await self.countingGeneration {
                try await self.serve(.text(prompt), format: format, options: options, reusesCache: reusesCache, flag: flag,
                                     emit: { emit(.text($0)) }, observe: { emit(.logProbability($0)) })
            }
            emit(.done(response))
            return response
        }
    }

    /// Streams a continuation of a prompt given as token ids.
    public nonisolated func streamCompletion(tokens: [Token], format: OutputFormat = .text,
                                             options: CompletionOptions = .init()) -> CompletionStream {
        makeStream(.tokens(tokens), format: format, options: options, reusesCache: true)
    }

    /// Generates a continuation of `prompt` (plain text) and returns it whole.
    /// - Throws: any ``LocalModel/Error`` that generation raises; for a `format`,
    ///   ``OutputFormat/Error/invalidSchema(property:reason:)`` or ``OutputFormat/Error/invalidGrammar(reason:)``.
    public nonisolated func complete(_ prompt: String, format: OutputFormat = .text,
                                     options: CompletionOptions = .init()) async throws -> ModelResponse<String> {
        try await streamCompletion(prompt, format: format, options: options).result
    }

    private nonisolated func makeStream(_ input: PromptInput, format: OutputFormat, options: CompletionOptions,
                                        reusesCache: Bool) -> CompletionStream {
        let flag = CancellationFlag()
        return CompletionStream.start(flag: flag) { emit in
            // Counted from here: the request may wait for the model's thread behind embedding work.
            try await self.countingGeneration {
                try await self.serve(input, format: format, options: options, reusesCache: reusesCache, flag: flag, emit: emit)
            }
        }
    }

    /// Runs one request to its end, alongside the model's other requests.
    private func serve(_ input: PromptInput, format: OutputFormat, options: CompletionOptions, reusesCache: Bool,
                       flag: CancellationFlag, emit: @escaping @Sendable (String) -> Void,
                       observe: (@Sendable (TokenLogProbability) -> Void)? = nil) async throws -> ModelResponse<String> {
        try options.validate()
        let constraint = try await format.preparedConstraint(for: handle)
        let plan = GenerationPlan(promptTokens: try promptTokens(for: input), options: options,
                                  constraint: constraint.map { .grammar($0.grammar) } ?? .none, reusesCache: reusesCache)
        var request = GenerationRequest(plan: plan, contextLimit: contextLength, cancellation: flag, emit: emit)
        request.observeLogProbability = observe
        let outcome = try await generate(request)
        if outcome.stopReason == .endOfText, let check = constraint?.check { try check.verify(outcome.text) }
        return ModelResponse(outcome)
    }

    private func promptTokens(for input: PromptInput) throws -> [Token] {
        switch input {
        case .text(let text):
            return try tokenizer.tokenize(text, addSpecial: true, parseSpecial: false)
        case .tokens(let tokens):
            try tokenizer.validate(tokens)
            return tokens
        }
    }
}
