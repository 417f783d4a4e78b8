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

    /// Streams the model's answer to a conversation, rendered with llama.cpp's
    /// built-in template matching (see ``chatTemplateName``). Message contents are
    /// never parsed for special tokens.
    public nonisolated func streamChatCompletion(_ messages: [ChatMessage], options: CompletionOptions = .init()) -> CompletionStream {
        makeStream(.chat(messages), options: options)
    }

    /// Which chat template ``streamChatCompletion(_:options:)`` uses:
    /// `embedded`, `builtin:NAME` or `chatml`.
    public nonisolated var chatTemplateName: String {
        BuiltinChatTemplate.resolve(model: handle, architecture: file.architecture).source.description
    }

    /// The prompt text that ``streamChatCompletion(_:options:)`` would evaluate.
    public nonisolated func renderChatPrompt(_ messages: [ChatMessage]) throws -> String {
        try BuiltinChatTemplate.resolve(model: handle, architecture: file.architecture).renderText(messages)
    }

    private nonisolated func makeStream(_ input: PromptInput, options: CompletionOptions) -> CompletionStream {
        let (chunks, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let outcome = Promise<CompletionResult>()
        let flag = CancellationFlag()
        let task = Task {
            await self.serve(input, options: options, flag: flag, continuation: continuation, outcome: outcome)
        }
        let cancel: @Sendable () -> Void = {
            flag.raise()
            task.cancel()
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { cancel() }
        }
        return CompletionStream(chunks: chunks, outcome: outcome, cancellation: cancel)
    }

    /// Runs one request to its end on the model's thread. Requests queue on the
    /// executor, so they never interleave.
    private func serve(_ input: PromptInput, options: CompletionOptions, flag: CancellationFlag,
                       continuation: AsyncThrowingStream<String, any Error>.Continuation,
                       outcome: Promise<CompletionResult>) {
        do {
            let tokens = try promptTokens(for: input)
            let run = try CompletionRun(
                context: context, tokenizer: tokenizer,
                options: options.filling(from: file.recommendedSampling), promptTokens: tokens, cancellation: flag)
            let result = try run.execute { continuation.yield($0) }
            continuation.finish()
            outcome.settle(.success(result))
        } catch {
            continuation.finish(throwing: error)
            outcome.settle(.failure(error))
        }
    }

    private func promptTokens(for input: PromptInput) throws -> [Token] {
        switch input {
        case .text(let text):
            return try tokenizer.tokenize(text, addSpecial: true, parseSpecial: false)
        case .tokens(let tokens):
            try tokenizer.validate(tokens)
            return tokens
        case .chat(let messages):
            let template = BuiltinChatTemplate.resolve(model: handle, architecture: file.architecture)
            return try tokenizer.tokenize(template.render(messages))
        }
    }
}
