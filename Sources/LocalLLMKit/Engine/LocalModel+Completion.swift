extension LocalModel {
    /// Streams a continuation of `prompt`, taken as plain text (no chat template).
    ///
    /// ```swift
    /// let stream = model.streamCompletion("Once upon a time", options: .init(maximumTokens: 64))
    /// for try await chunk in stream { print(chunk, terminator: "") }
    /// print(try await stream.result.stopReason)
    /// ```
    /// Special-token texts in `prompt` (such as `<eos>`) stay plain text.
    /// Errors (an invalid option, ``LLMKitError/promptTooLong(tokens:limit:)``)
    /// are thrown by the stream before its first chunk.
    public nonisolated func streamCompletion(_ prompt: String, options: CompletionOptions = .init()) -> CompletionStream {
        makeStream(.text(prompt), options: options)
    }

    /// Streams a continuation of a prompt given as token ids.
    public nonisolated func streamCompletion(tokens: [Token], options: CompletionOptions = .init()) -> CompletionStream {
        makeStream(.tokens(tokens), options: options)
    }

    /// Generates a continuation of `prompt` (plain text) and returns it whole.
    /// - Throws: any ``LLMKitError`` that generation raises.
    public nonisolated func complete(_ prompt: String, options: CompletionOptions = .init()) async throws -> CompletionResult {
        try await streamCompletion(prompt, options: options).result
    }

    private nonisolated func makeStream(_ input: PromptInput, options: CompletionOptions) -> CompletionStream {
        let flag = CancellationFlag()
        return CompletionStream.start(flag: flag) { emit in
            try await self.serve(input, options: options, flag: flag, emit: emit)
        }
    }

    /// Runs one request to its end on the model's thread. Requests queue on the
    /// executor, so they never interleave.
    private func serve(_ input: PromptInput, options: CompletionOptions, flag: CancellationFlag,
                       emit: @escaping @Sendable (String) -> Void) throws -> CompletionResult {
        let run = try CompletionRun(
            context: sharedContext(), tokenizer: tokenizer, options: options.filling(from: file.recommendedSampling),
            promptTokens: promptTokens(for: input), cancellation: flag)
        return try run.execute(emit: emit)
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
