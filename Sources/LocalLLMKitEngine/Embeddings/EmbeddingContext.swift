import CLlama

/// Owns a `llama_context` that outputs one pooled vector per sequence, and packs many
/// inputs into each `llama_decode`, as llama.cpp's `llama-embedding` does.
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
    }

    private let pointer: OpaquePointer
    /// Kept so that the model outlives its context.
    private let model: ModelHandle
    /// The pooling that every output of this context uses.
    package let pooling: Pooling
    /// The most tokens one decode holds, over all its inputs.
    package let batchCapacity: Int
    /// The most inputs one decode holds.
    package let sequenceCapacity: Int
    /// The length of each output vector.
    package let dimensions: Int
    /// Whether the model has a KV cache to clear between decodes (decoders do, BERT does not).
    private let hasMemory: Bool
    private var batch: llama_batch
    /// Released after the context (stored properties go after `deinit`'s body).
    private let threadPool: CPUThreadPool?

    /// Creates the context.
    /// - Parameters:
    ///   - causal: whether the model's attention is causal; a non-causal model must see every
    ///     input in one micro-batch (llama.cpp asserts `causal_attn || n_ubatch >= n_tokens`).
    ///   - batchCapacity: tokens per decode; at least the longest input.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package init(model: ModelHandle, pooling: Pooling, causal: Bool, batchCapacity: Int, threads: Int) throws {
        var parameters = llama_context_default_params()
        parameters.embeddings = true
        parameters.pooling_type = llama_pooling_type(rawValue: pooling.rawValue)
        parameters.n_ctx = UInt32(batchCapacity)
        parameters.n_batch = UInt32(batchCapacity)
        parameters.n_ubatch = UInt32(causal ? min(512, batchCapacity) : batchCapacity)
        // One cache for all inputs of a decode, each its own sequence (llama-embedding's defaults).
        parameters.n_seq_max = UInt32(min(256, llama_max_parallel_sequences()))
        parameters.kv_unified = true
        parameters.n_threads = Int32(threads)
        parameters.n_threads_batch = Int32(threads)
        let context = try LlamaRuntime.makeContext(model: model, parameters: parameters,
                                                   failure: "llama.cpp returned no embedding context for \(batchCapacity) tokens")
        self.pointer = context
        self.model = model
        self.pooling = pooling
        // A non-causal model must see a whole decode in one micro-batch (llama.cpp asserts it).
        self.batchCapacity = Int(causal ? llama_n_batch(context) : min(llama_n_batch(context), llama_n_ubatch(context)))
        self.sequenceCapacity = Int(llama_n_seq_max(context))
        self.dimensions = Int(llama_model_n_embd_out(model.pointer))
        self.hasMemory = llama_get_memory(context) != nil
        self.batch = llama_batch_init(Int32(self.batchCapacity), 0, 1)
        self.threadPool = CPUThreadPool(threads: threads)
        if let threadPool { llama_attach_threadpool(context, threadPool.pointer, threadPool.pointer) }
    }

    deinit {
        llama_batch_free(batch)
        LlamaRuntime.freeContext(pointer)
    }

    /// How `inputs` split into decodes: in order, as many to a decode as fit
    /// (``batchCapacity`` tokens, ``sequenceCapacity`` inputs).
    /// - Parameter inputs: token lists, each non-empty and at most ``batchCapacity`` long.
    package func groups(of inputs: [[Int32]]) -> [Range<Int>] {
        precondition(inputs.allSatisfy { !$0.isEmpty && $0.count <= batchCapacity }, "inputs must be checked first")
        var groups: [Range<Int>] = []
        var next = 0
        while next < inputs.count {
            var end = next
            var tokens = 0
            while end < inputs.count, end - next < sequenceCapacity, tokens + inputs[end].count <= batchCapacity {
                tokens += inputs[end].count
                end += 1
            }
            groups.append(next..<end)
            next = end
        }
        return groups
    }

    /// One decode of `inputs` (a group from ``groups(of:)``), each its own sequence from
    /// position 0; their pooled vectors, not normalised.
    /// - Throws: ``LocalModel/Error/decodeFailed(code:reason:)``, or
    ///   ``LocalModel/Error/remoteDeviceLost(endpoint:reason:)``.
    package func decode(_ inputs: ArraySlice<[Int32]>) throws -> [[Float]] {
        var count = 0
        for (sequence, input) in inputs.enumerated() {
            for (position, token) in input.enumerated() {
                batch.token[count] = token
                batch.pos[count] = Int32(position)
                batch.n_seq_id[count] = 1
                batch.seq_id[count]![0] = Int32(sequence)
                batch.logits[count] = 1
                count += 1
            }
        }
        batch.n_tokens = Int32(count)
        // Each decode starts from an empty cache: positions restart at 0 for every input.
        if hasMemory { llama_memory_clear(llama_get_memory(pointer), true) }
        let (code, errors) = LlamaLog.collectingErrors { llama_decode(pointer, batch) }
        if !model.remoteLinks.isEmpty {
            llama_synchronize(pointer)          // the remote part is read back asynchronously
            if let loss = model.remoteLoss { throw loss }
        }
        guard code == 0 else {
            throw LocalModel.Error.decodeFailed(code: code, reason: errors.summary ?? InferenceContext.describe(code, batchCapacity))
        }
        return try inputs.indices.map { index in
            let sequence = Int32(index - inputs.startIndex)
            guard let vector = llama_get_embeddings_seq(pointer, sequence) else {
                throw LocalModel.Error.decodeFailed(code: 0, reason: "llama.cpp returned no embedding for sequence \(sequence)")
            }
            return Array(UnsafeBufferPointer(start: vector, count: dimensions))
        }
    }
}
