import CLlama

/// Owns a `llama_context` (the KV cache and compute buffers) and a reusable batch.
///
/// Not thread-safe: it lives inside an actor that runs on an ``EngineExecutor``.
package final class InferenceContext: @unchecked Sendable {
    package let pointer: OpaquePointer
    package let model: ModelHandle
    /// The context length in tokens: what was asked for, even when llama.cpp allocated more.
    package let contextLength: Int
    /// The largest number of tokens one `llama_decode` call accepts.
    package let batchSize: Int
    private var batch: llama_batch
    /// Whether the sliding-window cache keeps every position (then any prefix can be reused).
    package let fullSlidingWindowCache: Bool
    /// The tokens whose keys and values are in the cache, from position 0 on.
    package private(set) var cachedTokens: [Int32] = []
    /// Raised to make a running `llama_decode` return early.
    private var abortFlag = CancellationFlag()

    /// Creates a context for `model`.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package init(model: ModelHandle, parameters: llama_context_params) throws {
        let (context, errors) = LlamaLog.collectingErrors {
            llama_init_from_model(model.pointer, parameters)
        }
        guard let context else {
            throw LocalModel.Error.contextCreationFailed(
                reason: errors.summary ?? "llama.cpp returned no context (too little memory for \(parameters.n_ctx) tokens?)")
        }
        self.pointer = context
        self.model = model
        // llama.cpp may round the cache up (to a multiple of 256); the length asked for stays the limit.
        let allocated = Int(llama_n_ctx(context))
        self.contextLength = parameters.n_ctx > 0 ? min(Int(parameters.n_ctx), allocated) : allocated
        self.batchSize = Int(llama_n_batch(context))
        self.batch = llama_batch_init(Int32(batchSize), 0, 1)
        self.fullSlidingWindowCache = parameters.swa_full
        installAbortCallback()
    }

    deinit {
        llama_batch_free(batch)
        llama_free(pointer)
    }

    /// Makes `flag` the one that aborts `llama_decode` (one flag per request).
    package func abort(on flag: CancellationFlag) {
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
    package func synchronize() {
        llama_synchronize(pointer)
    }

    /// Forgets everything in the KV cache.
    package func clearMemory() {
        llama_memory_clear(llama_get_memory(pointer), true)
        cachedTokens.removeAll()
    }

    /// Evaluates `tokens` as a prompt. With `reusingCache`, the longest prefix already
    /// in the cache is kept and only the rest is decoded; when the cache cannot be cut
    /// there (a sliding-window cache that no longer holds the window), everything is
    /// evaluated again.
    /// - Returns: how many tokens came from the cache, or nil if it was aborted.
    package func evaluate(_ tokens: [Int32], reusingCache: Bool) throws -> Int? {
        var reused = reusablePrefix(for: tokens, reusingCache: reusingCache)
        if !keepPrefix(reused) {
            reused = 0
        }
        return try decode(tokens[reused...], startingAt: reused) ? reused : nil
    }

    /// How many leading tokens of a prompt ``evaluate(_:reusingCache:)`` would take from the cache.
    package func reusablePrefix(for tokens: [Int32], reusingCache: Bool) -> Int {
        guard reusingCache, !tokens.isEmpty else { return 0 }
        // The last token is decoded again for its logits.
        let count = min(zip(cachedTokens, tokens).prefix { $0 == $1 }.count, tokens.count - 1)
        return count > 0 && windowEvicted(before: count) ? 0 : count
    }

    /// Whether a sliding-window cache has dropped positions that a prefix of `count` tokens needs.
    private func windowEvicted(before count: Int) -> Bool {
        let window = fullSlidingWindowCache ? 0 : Int(llama_model_n_swa(model.pointer))
        return window > 0 && Int(llama_memory_seq_pos_min(llama_get_memory(pointer), 0)) > max(0, count - window)
    }

    /// Cuts the cache back to its first `count` positions; false if that is impossible,
    /// in which case the cache is empty afterwards.
    @discardableResult
    package func keepPrefix(_ count: Int) -> Bool {
        guard count > 0, count <= cachedTokens.count else {
            clearMemory()
            return count == 0
        }
        if windowEvicted(before: count) {
            clearMemory()       // the positions the window needs have been evicted
            return false
        }
        guard llama_memory_seq_rm(llama_get_memory(pointer), 0, Int32(count), -1) else {
            clearMemory()
            return false
        }
        cachedTokens.removeSubrange(count...)
        return true
    }

    /// The serialized state of sequence 0 (its KV cache), for saving.
    package func sequenceState() -> [UInt8] {
        let size = llama_state_seq_get_size(pointer, 0)
        var data = [UInt8](repeating: 0, count: size)
        let written = data.withUnsafeMutableBufferPointer { llama_state_seq_get_data(pointer, $0.baseAddress, size, 0) }
        return Array(data.prefix(written))
    }

    /// Restores sequence 0 from `state`, which holds the keys and values of `tokens`.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when llama.cpp rejects it;
    ///   the cache is then empty.
    package func restoreSequenceState(_ state: [UInt8], tokens: [Int32]) throws {
        clearMemory()
        let read = state.withUnsafeBufferPointer { llama_state_seq_set_data(pointer, $0.baseAddress, state.count, 0) }
        guard read == state.count, Int(llama_memory_seq_pos_max(llama_get_memory(pointer), 0)) == tokens.count - 1 else {
            clearMemory()
            throw LocalModel.Error.invalidOption(name: "state", reason: "llama.cpp could not restore the saved cache")
        }
        cachedTokens = tokens
    }

    /// Evaluates `tokens` at positions `start…` of sequence 0, in chunks of at most
    /// ``batchSize`` tokens. Logits are computed for the last token only.
    /// - Returns: false if it was aborted through the abort flag.
    /// - Throws: ``LocalModel/Error/decodeFailed(code:reason:)``.
    @discardableResult
    package func decode(_ tokens: ArraySlice<Int32>, startingAt start: Int) throws -> Bool {
        if start != cachedTokens.count { keepPrefix(start) }
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
            if code != 0 {
                keepPrefix(cachedTokens.count)      // drop what an interrupted chunk left behind
            }
            switch code {
            case 0:
                position += chunk.count
                cachedTokens += chunk
            case 2: return false
            case 1: throw LocalModel.Error.decodeFailed(code: code, reason: "no room left in the KV cache (context of \(contextLength) tokens)")
            case -1: throw LocalModel.Error.decodeFailed(code: code, reason: "invalid batch")
            default: throw LocalModel.Error.decodeFailed(code: code, reason: "fatal error inside llama.cpp")
            }
        }
        return true
    }
}
