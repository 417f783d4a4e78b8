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
    /// packed many to a `llama_decode` (512 tokens, or the longest text's length), each its own
    /// sequence, in a context of their own, as llama.cpp's `llama-embedding` does. An embedding model (BERT) and a decoder (Qwen,
    /// Gemma, Llama) both work; a decoder pools its last token by default. Cancelling the
    /// calling task stops before the next decode.
    /// - Parameters:
    ///   - texts: what to embed; an empty text is fine when the model adds special tokens.
    ///   - options: pooling, normalisation and truncation.
    /// - Throws: ``LocalModel/EmbeddingError``, ``LocalModel/Error/contextCreationFailed(reason:)``,
    ///   ``LocalModel/Error/decodeFailed(code:reason:)``, ``LocalModel/Error/tokenizationFailed(reason:)``
    ///   or `CancellationError`.
    public func embeddings(for texts: [String], options: EmbeddingOptions = .init()) async throws -> Embeddings {
        let clock = ContinuousClock()
        let start = clock.now
        guard !texts.isEmpty else { throw EmbeddingError.emptyInput }
        guard !configuration.vocabularyOnly else {
            throw EmbeddingError.unsupportedModel(path: url.path, reason: "it was loaded with vocabularyOnly, without its weights")
        }
        let pooling = try resolvedPooling(options.pooling)
        let context = try embeddingContext(pooling)
        let (inputs, truncated) = try embeddingInputs(texts, limit: min(embeddingInputLimit, context.batchCapacity),
                                                      truncates: options.truncates)
        var vectors: [[Float]] = []
        vectors.reserveCapacity(inputs.count)
        let groups = context.groups(of: inputs)
        var decoding = Duration.zero
        for group in groups {
            try Task.checkCancellation()
            let decodeStart = clock.now
            let pooled = try context.decode(inputs[group])
            decoding += clock.now - decodeStart
            vectors += options.normalizes ? pooled.map(Self.normalized) : pooled
            // Let the model's generation steps (and other callers) run between decodes.
            await Task.yield()
        }
        return Embeddings(vectors: vectors, dimensions: context.dimensions, pooling: Pooling(pooling),
                          isNormalized: options.normalizes, tokenCounts: inputs.map(\.count),
                          truncatedIndices: truncated, decodeCount: groups.count, duration: clock.now - start,
                          decodingDuration: decoding)
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

    /// Tokens per embedding decode, unless one text needs more. A non-causal model attends
    /// over the whole micro-batch, so smaller decodes do less work: on this machine's CPU,
    /// llama-embedding takes 5.8 s for 1,000 sentences at 512 and 8.8 s at its default 2048.
    package static let embeddingBatchTokens = 512

    /// The model's embedding context for `pooling`, created on first use.
    private func embeddingContext(_ pooling: EmbeddingContext.Pooling) throws -> EmbeddingContext {
        if let context = embeddingContexts[pooling] { return context }
        let threads = configuration.effectiveThreads
        guard (1...1024).contains(threads) else {
            throw LocalModel.Error.invalidOption(name: "threads", reason: "\(threads) is not between 1 and 1024")
        }
        let context = try EmbeddingContext(model: handle, pooling: pooling, causal: isCausal,
                                           batchCapacity: max(Self.embeddingBatchTokens, embeddingInputLimit), threads: threads)
        embeddingContexts[pooling] = context
        return context
    }
}
