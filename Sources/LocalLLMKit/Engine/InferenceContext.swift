import CLlama

/// Owns a `llama_context` (the KV cache and compute buffers) and a reusable batch.
///
/// Not thread-safe: it lives inside an actor that runs on an ``EngineExecutor``.
final class InferenceContext: @unchecked Sendable {
    let pointer: OpaquePointer
    let model: ModelHandle
    /// The context length in tokens: what was asked for, even when llama.cpp allocated more.
    let contextLength: Int
    /// The largest number of tokens one `llama_decode` call accepts.
    let batchSize: Int
    private var batch: llama_batch
    /// Raised to make a running `llama_decode` return early.
    private var abortFlag = CancellationFlag()

    /// Creates a context for `model`.
    /// - Throws: ``LLMKitError/contextCreationFailed(reason:)``.
    init(model: ModelHandle, parameters: llama_context_params) throws {
        let (context, errors) = LlamaLog.collectingErrors {
            llama_init_from_model(model.pointer, parameters)
        }
        guard let context else {
            throw LLMKitError.contextCreationFailed(
                reason: errors.summary ?? "llama.cpp returned no context (too little memory for \(parameters.n_ctx) tokens?)")
        }
        self.pointer = context
        self.model = model
        // llama.cpp may round the cache up (to a multiple of 256); the length asked for stays the limit.
        let allocated = Int(llama_n_ctx(context))
        self.contextLength = parameters.n_ctx > 0 ? min(Int(parameters.n_ctx), allocated) : allocated
        self.batchSize = Int(llama_n_batch(context))
        self.batch = llama_batch_init(Int32(batchSize), 0, 1)
        installAbortCallback()
    }

    deinit {
        llama_batch_free(batch)
        llama_free(pointer)
    }

    /// Makes `flag` the one that aborts `llama_decode` (one flag per request).
    func abort(on flag: CancellationFlag) {
        abortFlag = flag
        installAbortCallback()
    }

    private func installAbortCallback() {
        let flag = Unmanaged.passUnretained(abortFlag).toOpaque()
        llama_set_abort_callback(pointer, { data in
            guard let data else { return false }
            return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isRaised
        }, flag)
    }

    /// Waits until all queued computation is finished (needed on GPU backends for timing).
    func synchronize() {
        llama_synchronize(pointer)
    }

    /// Forgets everything in the KV cache.
    func clearMemory() {
        llama_memory_clear(llama_get_memory(pointer), true)
    }

    /// Evaluates `tokens` at positions `start…` of sequence 0, in chunks of at most
    /// ``batchSize`` tokens. Logits are computed for the last token only.
    /// - Returns: false if it was aborted through the abort flag.
    /// - Throws: ``LLMKitError/decodeFailed(code:reason:)``.
    @discardableResult
    func decode(_ tokens: ArraySlice<Int32>, startingAt start: Int) throws -> Bool {
        var position = start
        var remaining = tokens
        while !remaining.isEmpty {
            if abortFlag.isRaised { return false }
            let chunk = remaining.prefix(batchSize)
            remaining = remaining.dropFirst(chunk.count)
            batch.n_tokens = Int32(chunk.count)
            for (offset, token) in chunk.enumerated() {
                batch.token[offset] = token
                batch.pos[offset] = Int32(position + offset)
                batch.n_seq_id[offset] = 1
                batch.seq_id[offset]![0] = 0
                batch.logits[offset] = (remaining.isEmpty && offset == chunk.count - 1) ? 1 : 0
            }
            let code = llama_decode(pointer, batch)
            switch code {
            case 0: position += chunk.count
            case 2: return false
            case 1: throw LLMKitError.decodeFailed(code: code, reason: "no room left in the KV cache (context of \(contextLength) tokens)")
            case -1: throw LLMKitError.decodeFailed(code: code, reason: "invalid batch")
            default: throw LLMKitError.decodeFailed(code: code, reason: "fatal error inside llama.cpp")
            }
        }
        return true
    }
}
