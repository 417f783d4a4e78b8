import CLlama
import Foundation

extension LocalModel {
    /// The most tokens one text may have for ``embeddings(for:options:)``: the context length,
    /// and never more than the model was trained on (BERT has no position past it).
    public nonisolated var embeddingInputLimit: Int {
        min(contextLength, file.trainingContextLength ?? contextLength)
    }

    /// The length of the vectors that ``embeddings(for:options:)`` returns (`llama_model_n_embd_out`):
    /// 384 for all-MiniLM-L6-v2.
    public nonisolated var embeddingDimensions: Int {
        Int(llama_model_n_embd_out(handle.pointer))
    }

    /// The vectors of `texts`, one per text, in order.
    ///
    /// ```swift
    /// let model = try await LocalModel.load(from: URL(filePath: "all-MiniLM-L6-v2-f16.gguf"))
    /// let result = try await model.embeddings(for: ["A cat sits on the mat.", "Ein Hund bellt."])
    /// print(result.dimensions, result.vectors[0].prefix(4))    // 384 [-0.01, 0.05, …]
    /// ```
    ///
    /// The texts are tokenized with the model's special tokens (BERT's `[CLS]` … `[SEP]`) and
    /// packed many to a `llama_decode` (512 tokens), each its own sequence, in a context of their
    /// own, as llama.cpp's `llama-embedding` does. An embedding model (BERT) and a decoder (Qwen,
    /// Gemma, Llama) both work; a decoder pools its last token by default.
    ///
    /// On a model that also generates, embedding never holds the model's thread for long: the
    /// decodes are units of bounded size (a decoder splits a long text over several), and while
    /// requests generate, one unit sized to about half a generation step runs between two steps.
    /// Embedding requests take turns, and those waiting count against
    /// ``LocalModel/Configuration/Serving/maximumQueuedRequests``. Cancelling the calling task stops within one decode.
    /// - Parameters:
    ///   - texts: what to embed; an empty text is fine when the model adds special tokens.
    ///   - options: pooling, normalisation and truncation.
    /// - Throws: ``LocalModel/EmbeddingError``, ``LocalModel/Error/contextCreationFailed(reason:)``,
    ///   ``LocalModel/Error/decodeFailed(code:reason:)``, ``LocalModel/Error/tokenizationFailed(reason:)``,
    ///   ``LocalModel/Error/busy(queuedRequests:)`` or `CancellationError`.
    public func embeddings(for texts: [String], options: EmbeddingOptions = .init()) async throws -> Embeddings {
        let clock = ContinuousClock()
        let start = clock.now
        guard !texts.isEmpty else { throw EmbeddingError.emptyInput }
        guard !configuration.weights.vocabularyOnly else {
            throw EmbeddingError.unsupportedModel(path: url.path, reason: "it was loaded with vocabularyOnly, without its weights")
        }
        let pooling = try resolvedPooling(options.pooling)
        let context = try embeddingContext(pooling)
        let (inputs, truncated) = try embeddingInputs(texts, limit: min(embeddingInputLimit, context.textCapacity),
                                                      truncates: options.truncates)
        let (job, decoding) = try await decode(inputs, on: context)
        let vectors = options.normalizes ? job.vectors.map(Self.normalized) : job.vectors
        return Embeddings(vectors: vectors, dimensions: context.dimensions, pooling: Pooling(pooling),
                          isNormalized: options.normalizes, tokenCounts: inputs.map(\.count),
                          truncatedIndices: truncated, decodeCount: job.unitCount, duration: clock.now - start,
                          decodingDuration: decoding)
    }

    /// Decodes `inputs` on `context` in turn with other embedding requests, in units that give way
    /// to generation; returns the finished job and the time spent decoding.
    /// - Throws: ``LocalModel/Error/busy(queuedRequests:)``, `CancellationError`, or a decode's error.
    func decode(_ inputs: [[Token]], on context: EmbeddingContext) async throws -> (EmbeddingJob, Duration) {
        let clock = ContinuousClock()
        try await takeEmbeddingTurn()
        defer { finishEmbeddingTurn() }
        let flag = CancellationFlag()
        var job = context.begin(inputs)
        var decoding = Duration.zero
        try await withTaskCancellationHandler {
            while !job.isFinished {
                try Task.checkCancellation()
                let decodeStart = clock.now
                let before = job.decodedTokens
                // A full unit while nothing generates gives way to a generation request that
                // arrives meanwhile: it stops, and is decoded again in smaller units.
                try context.decodeUnit(of: &job, tokens: embeddingUnitTokens(context), cancellation: flag,
                                       preempts: isIdleForEmbedding ? generationArrived : nil)
                let unit = clock.now - decodeStart
                decoding += unit
                embeddingTurns.count(unit: job.decodedTokens - before)
                publishEmbeddingLoad()
                // The model's generation steps (queued meanwhile) run before the next unit: each
                // yield lets one step run, and a unit that took longer than half a step waits for
                // as many steps as keep embedding to a third of the thread.
                for _ in 0..<generationStepsToYield(after: unit) { await Task.yield() }
            }
        } onCancel: {
            flag.raise()
        }
        return (job, decoding)
    }

    /// Whether a generation request is running or on its way to the model, read while a unit decodes.
    private nonisolated var generationArrived: @Sendable () -> Bool {
        { [self] in generationsInFlight.load(ordering: .relaxed) > 0 }
    }

    /// Whether no generation request is running or on its way to the model.
    private var isIdleForEmbedding: Bool {
        generationsInFlight.load(ordering: .relaxed) == 0
            && (existingScheduler.map { $0.activeCount + $0.waitingCount == 0 } ?? true)
    }

    /// Tokens for the next embedding unit: a full unit (512 tokens) while nothing generates, so
    /// that texts are decoded in the shapes llama.cpp's own tools use (a generation request that
    /// arrives meanwhile stops it); while requests generate, about half a generation step's time
    /// at the measured embedding rate, so that generation keeps most of the model's thread (at
    /// least 8 tokens, for progress).
    private func embeddingUnitTokens(_ context: EmbeddingContext) -> Int {
        guard let scheduler = existingScheduler, !isIdleForEmbedding else { return context.unitCapacity }
        let rate = context.tokensPerSecond ?? 200
        let stepSeconds = scheduler.lastGenerationStepSeconds ?? 0.05
        return min(max(Int(rate * stepSeconds / 2), 8), context.unitCapacity)
    }

    /// Generation steps to let run after an embedding unit that took `unit`: one, or while
    /// requests generate, enough that units take at most a third of the model's thread.
    private func generationStepsToYield(after unit: Duration) -> Int {
        guard let scheduler = existingScheduler, scheduler.activeCount + scheduler.waitingCount > 0,
              let step = scheduler.lastGenerationStepSeconds, step > 0 else { return 1 }
        return min(max(Int((unit.seconds / (step / 2)).rounded(.up)), 1), 64)
    }

    /// Waits for this request's turn to embed (see ``EmbeddingTurns``).
    /// - Throws: ``LocalModel/Error/busy(queuedRequests:)`` when the queue is full, or `CancellationError`.
    private func takeEmbeddingTurn() async throws {
        guard let ticket = embeddingTurns.take() else {
            publishEmbeddingLoad()
            return
        }
        let queued = (existingScheduler?.queuedCount ?? 0) + embeddingTurns.waitingCount
        if queued >= configuration.serving.maximumQueuedRequests { throw LocalModel.Error.busy(queuedRequests: queued) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Swift.Error>) in
                embeddingTurns.wait(ticket, continuation)
                publishEmbeddingLoad()
            }
        } onCancel: {
            Task { await self.withdrawEmbeddingTurn(ticket) }
        }
    }

    private func withdrawEmbeddingTurn(_ ticket: UInt64) {
        guard let waiter = embeddingTurns.withdraw(ticket) else { return }
        publishEmbeddingLoad()
        waiter.resume(throwing: CancellationError())
    }

    private func finishEmbeddingTurn() {
        let next = embeddingTurns.finish()
        publishEmbeddingLoad()
        next?.resume()
    }

    /// The vector of one text (see ``embeddings(for:options:)``).
    /// - Throws: as ``embeddings(for:options:)`` does.
    public func embedding(for text: String, options: EmbeddingOptions = .init()) async throws -> [Float] {
        try await embeddings(for: [text], options: options).vectors[0]
    }

    /// The texts' tokens, checked against `limit` (or cut to it), and the positions of those
    /// that were cut.
    private func embeddingInputs(_ texts: [String], limit: Int, truncates: Bool) throws -> ([[Token]], [Int]) {
        var inputs: [[Token]] = []
        var truncated: [Int] = []
        inputs.reserveCapacity(texts.count)
        for (index, text) in texts.enumerated() {
            try Task.checkCancellation()
            // As llama-embedding tokenizes: with the model's special tokens, parsing special text.
            var tokens = try tokenizer.tokenize(text, addSpecial: true, parseSpecial: true)
            guard !tokens.isEmpty else { throw EmbeddingError.noTokens(index: index) }
            if tokens.count > limit {
                guard truncates else { throw EmbeddingError.inputTooLong(index: index, tokenCount: tokens.count, limit: limit) }
                tokens = Self.truncated(tokens, to: limit, keepingClosingToken: tokenizer.addsClosingToken)
                truncated.append(index)
            }
            inputs.append(tokens)
        }
        return (inputs, truncated)
    }

    /// The first `limit` tokens; with `keepingClosingToken`, the first `limit - 1` and the
    /// closing token the tokenizer added.
    package static func truncated(_ tokens: [Token], to limit: Int, keepingClosingToken: Bool) -> [Token] {
        guard tokens.count > limit else { return tokens }
        guard keepingClosingToken, limit > 1, let last = tokens.last else { return Array(tokens.prefix(limit)) }
        return tokens.prefix(limit - 1) + [last]
    }

    /// `vector` scaled to length 1 (all zeros stays all zeros), as llama.cpp's
    /// `common_embd_normalize` with its default (L2) norm.
    package static func normalized(_ vector: [Float]) -> [Float] {
        var sum = 0.0
        for value in vector { sum += Double(value) * Double(value) }
        let scale = sum > 0 ? Float(1 / sum.squareRoot()) : 0
        return vector.map { $0 * scale }
    }

    /// Tokens per embedding decode (a unit), unless an encoder's text needs more. A non-causal
    /// model attends over the whole micro-batch, so smaller decodes do less work (measured in
    /// docs/PERFORMANCE.md); a decoder splits longer texts over units.
    package static let embeddingBatchTokens = 512

    /// The model's embedding context for `pooling`, created on first use.
    func embeddingContext(_ pooling: EmbeddingContext.Pooling) throws -> EmbeddingContext {
        if let context = embeddingContexts[pooling] { return context }
        let threads = configuration.effectiveThreads
        guard (1...1024).contains(threads) else {
            throw LocalModel.Error.invalidOption(name: "threads", reason: "\(threads) is not between 1 and 1024")
        }
        let context = try EmbeddingContext(model: handle, pooling: pooling, causal: isCausal,
                                           textCapacity: embeddingInputLimit, threads: threads,
                                           flashAttention: configuration.context.flashAttention)
        embeddingContexts[pooling] = context
        return context
    }
}
