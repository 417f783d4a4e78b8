import CLlama

/// Owns a `llama_context` for embeddings, and decodes an ``EmbeddingJob`` one bounded unit at a
/// time, many texts to a unit, each its own sequence, as llama.cpp's `llama-embedding` packs them.
///
/// An encoder (BERT, non-causal) sees each text whole in one micro-batch, and llama.cpp pools it.
/// A decoder (causal) may split a long text over several units: its sequence keeps its cache
/// between them, llama.cpp outputs the token vectors the pooling needs, and the job pools them.
///
/// Not thread-safe: the ``LocalModel`` actor owns it, on the model's ``EngineExecutor``.
package final class EmbeddingContext: @unchecked Sendable {
    /// How the token vectors of one input become its vector (llama.cpp's `llama_pooling_type`).
    package enum Pooling: Int32, Sendable, CaseIterable {
        /// The average over the input's tokens.
        case mean = 1
        /// The first token's vector (BERT's `[CLS]`).
        case cls = 2
        /// The last token's vector (decoder models).
        case last = 3
        /// A query–document pair's scores from the model's classification head (a reranker).
        case rank = 4
    }

    private let pointer: OpaquePointer
    /// Kept so that the model outlives its context.
    private let model: ModelHandle
    /// The pooling that every output of this context uses.
    package let pooling: Pooling
    /// Whether the model's attention is causal: texts may then be split over units.
    package let isCausal: Bool
    /// Whether the job pools token vectors (a decoder's mean or first token); otherwise llama.cpp
    /// pools each text (an encoder's texts, and a decoder's last token).
    private let poolsTokens: Bool
    /// The most tokens one unit (one `llama_decode`) holds, over all its texts.
    package let unitCapacity: Int
    /// The longest text.
    package let textCapacity: Int
    /// The most texts one unit holds.
    package let sequenceCapacity: Int
    /// The length of each output vector.
    package let dimensions: Int
    /// Whether the model has a KV cache to clear between jobs (decoders do, BERT does not).
    private let hasMemory: Bool
    private var batch: llama_batch
    /// Read by llama.cpp between compute steps: the job's cancellation.
    private let abortCondition = AbortCondition()
    /// Released after the context (stored properties go after `deinit`'s body).
    private let threadPool: CPUThreadPool?
    /// The decode rate of the last unit, in tokens a second: sizes the next unit for a time budget.
    package private(set) var tokensPerSecond: Double?

    /// Creates the context.
    /// - Parameters:
    ///   - causal: whether the model's attention is causal; a non-causal model must see every
    ///     text in one micro-batch (llama.cpp asserts `causal_attn || n_ubatch >= n_tokens`).
    ///   - textCapacity: the longest text, in tokens.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package init(model: ModelHandle, pooling: Pooling, causal: Bool, textCapacity: Int, threads: Int,
                 flashAttention: LocalModel.Configuration.FlashAttention = .auto) throws {
        let unit = LocalModel.embeddingBatchTokens
        var parameters = llama_context_default_params()
        parameters.embeddings = true
        // llama.cpp pools within a micro-batch: the last token of a decoder's text is in the unit
        // that ends it, so llama.cpp can pool it; a mean or the first token of a text split over
        // units the job pools from the token vectors, which then come out as they are.
        let poolsTokens = causal && pooling != .last
        parameters.pooling_type = poolsTokens ? LLAMA_POOLING_TYPE_NONE : llama_pooling_type(rawValue: pooling.rawValue)
        // A decoder carries at most one text's tokens between units, plus one unit.
        let capacity = causal ? textCapacity + unit : max(unit, textCapacity)
        parameters.n_ctx = UInt32(capacity)
        parameters.n_batch = UInt32(causal ? unit : capacity)
        parameters.n_ubatch = UInt32(causal ? unit : capacity)
        // One cache for all texts of a unit, each its own sequence (llama-embedding's defaults).
        parameters.n_seq_max = UInt32(min(256, llama_max_parallel_sequences()))
        parameters.kv_unified = true
        parameters.flash_attn_type = flashAttention.llamaType
        parameters.n_threads = Int32(threads)
        parameters.n_threads_batch = Int32(threads)
        let context = try LlamaRuntime.makeContext(model: model, parameters: parameters,
                                                   failure: "llama.cpp returned no embedding context for \(capacity) tokens")
        self.pointer = context
        self.model = model
        self.pooling = pooling
        self.isCausal = causal
        self.poolsTokens = poolsTokens
        self.unitCapacity = Int(min(llama_n_batch(context), llama_n_ubatch(context)))
        self.textCapacity = causal ? textCapacity : unitCapacity
        self.sequenceCapacity = Int(llama_n_seq_max(context))
        self.dimensions = pooling == .rank ? Int(llama_model_n_cls_out(model.pointer))
            : Int(poolsTokens ? llama_model_n_embd(model.pointer) : llama_model_n_embd_out(model.pointer))
        self.hasMemory = llama_get_memory(context) != nil
        self.batch = llama_batch_init(Int32(self.unitCapacity), 0, 1)
        self.threadPool = CPUThreadPool(threads: threads)
        if let threadPool { llama_attach_threadpool(context, threadPool.pointer, threadPool.pointer) }
        abortCondition.install(on: context)
    }

    deinit {
        llama_batch_free(batch)
        LlamaRuntime.freeContext(pointer)
    }

    /// Starts `inputs` (each non-empty and at most ``textCapacity`` tokens) from an empty cache.
    package func begin(_ inputs: [[Int32]]) -> EmbeddingJob {
        precondition(inputs.allSatisfy { !$0.isEmpty && $0.count <= textCapacity }, "inputs must be checked first")
        if hasMemory { llama_memory_clear(llama_get_memory(pointer), true) }
        return EmbeddingJob(inputs: inputs)
    }

    /// Decodes the job's next unit: at most `tokens` tokens (a decoder's texts split to fit; an
    /// encoder's whole texts, at least one) in one `llama_decode`, unless `preempts` says so
    /// while it runs: the unit then counts for nothing (llama.cpp drops its cells) and is
    /// decoded again later.
    /// - Returns: false when it was preempted.
    /// - Throws: `CancellationError` when `cancellation` was raised (also during the decode),
    ///   ``LocalModel/Error/decodeFailed(code:reason:)``, or ``LocalModel/Error/remoteDeviceLost(endpoint:reason:)``.
    @discardableResult
    package func decodeUnit(of job: inout EmbeddingJob, tokens: Int, cancellation: CancellationFlag,
                            preempts: (@Sendable () -> Bool)? = nil) throws -> Bool {
        guard !cancellation.isRaised else { throw CancellationError() }
        let spans = job.nextUnit(tokens: min(max(tokens, 1), unitCapacity), sequences: sequenceCapacity, splits: isCausal)
        var count = 0
        var outputs: [Int32] = []
        for span in spans {
            // Only the rows the pooling needs are outputs: llama.cpp then computes the last layer and
            // the output head for those alone, and its logits buffer (vocabulary × outputs) stays small.
            let wanted: Range<Int> = isCausal ? EmbeddingJob.outputRows(of: span, pooling: pooling) : 0..<span.count
            for index in 0..<span.count {
                batch.token[count] = job.inputs[span.text][span.start + index]
                batch.pos[count] = Int32(span.start + index)
                batch.n_seq_id[count] = 1
                batch.seq_id[count]![0] = span.sequence
                batch.logits[count] = wanted.contains(index) ? 1 : 0
                if poolsTokens && wanted.contains(index) { outputs.append(Int32(count)) }
                count += 1
            }
        }
        batch.n_tokens = Int32(count)
        let start = ContinuousClock.now
        abortCondition.flags = [cancellation]
        abortCondition.preempts = preempts
        let (code, errors) = LlamaLog.collectingErrors { llama_decode(pointer, batch) }
        abortCondition.flags = []
        abortCondition.preempts = nil
        // Between units the pool's threads would spin, taking cores from generation steps.
        threadPool?.pause()
        if !model.remoteLinks.isEmpty {
            llama_synchronize(pointer)          // the remote part is read back asynchronously
            if let loss = model.remoteLoss { throw loss }
        }
        if cancellation.isRaised { throw CancellationError() }
        if code == 2 { return false }
        guard code == 0 else {
            throw LocalModel.Error.decodeFailed(code: code, reason: errors.summary ?? InferenceContext.describe(code, unitCapacity))
        }
        // Pooled by llama.cpp: one vector for each span that ends its text.
        let vectors: [[Float]] = try poolsTokens
            ? outputs.map { row in try vector(llama_get_embeddings_ith(pointer, row), what: "token \(row)") }
            : spans.filter(\.finishes).map { span in
                try vector(llama_get_embeddings_seq(pointer, span.sequence), what: "sequence \(span.sequence)")
            }
        let rate = (ContinuousClock.now - start).rate(of: count)
        if rate > 0 { tokensPerSecond = rate }
        job.record(spans, vectors: vectors, pooling: pooling, pooledByModel: !poolsTokens)
        // A finished text's cells are free for the next unit; an encoder keeps no cache.
        if hasMemory {
            for span in spans where span.finishes {
                llama_memory_seq_rm(llama_get_memory(pointer), span.sequence, -1, -1)
            }
        }
        return true
    }

    private func vector(_ pointer: UnsafeMutablePointer<Float>?, what: String) throws -> [Float] {
        guard let pointer else {
            throw LocalModel.Error.decodeFailed(code: 0, reason: "llama.cpp returned no embedding for \(what)")
        }
        return Array(UnsafeBufferPointer(start: pointer, count: dimensions))
    }
}
