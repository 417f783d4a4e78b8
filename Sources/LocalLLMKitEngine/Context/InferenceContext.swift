import CLlama

/// Owns a `llama_context` (the KV cache of all its sequences, and compute buffers) and a
/// reusable batch.
///
/// Not thread-safe: it lives inside an actor, or the ``BatchScheduler``, on an ``EngineExecutor``.
package final class InferenceContext: @unchecked Sendable {
    package let pointer: OpaquePointer
    package let model: ModelHandle
    /// The number of KV cells: what was asked for, even when llama.cpp allocated more.
    package let contextLength: Int
    /// The largest number of tokens one `llama_decode` call accepts.
    package let batchSize: Int
    /// How many sequences it holds.
    package let sequenceCount: Int
    private var batch: llama_batch
    /// How many streams of cells its cache has: one when unified (or with one sequence), one per
    /// sequence otherwise. A sequence's saved state records it, and llama.cpp restores a state
    /// only into a cache of the same count.
    package var streamCount: Int { parameters.kv_unified ? 1 : sequenceCount }
    /// Whether the sliding-window cache keeps every position (then any prefix can be reused).
    package let fullSlidingWindowCache: Bool
    /// The parameters it was created with (a draft model's context copies them).
    package let parameters: llama_context_params
    /// A context whose cache follows this one's: every removal, prefix copy and clearing here is
    /// done there too (a multi-token-prediction context, whose cells pair with this one's).
    package weak var mirror: InferenceContext?
    /// Read by llama.cpp's abort callback while `llama_decode` runs.
    private let abortCondition = AbortCondition()
    /// The scale of each of the model's LoRA adapters that decodes use now (see
    /// ``useAdapterScales(_:)``); the configuration's when the context is made.
    package private(set) var adapterScales: [Float]

    /// Creates a context for `model`.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package init(model: ModelHandle, parameters: llama_context_params) throws {
        let context = try LlamaRuntime.makeContext(
            model: model, parameters: parameters,
            failure: "llama.cpp returned no context (too little memory for \(parameters.n_ctx) tokens?)")
        self.pointer = context
        self.model = model
        // llama.cpp may round the cache up (to a multiple of 256); the length asked for stays the limit.
        let allocated = Int(llama_n_ctx(context))
        self.contextLength = parameters.n_ctx > 0 ? min(Int(parameters.n_ctx), allocated) : allocated
        self.batchSize = Int(llama_n_batch(context))
        self.sequenceCount = Int(llama_n_seq_max(context))
        self.batch = llama_batch_init(Int32(batchSize), 0, 1)
        self.fullSlidingWindowCache = parameters.swa_full
        self.parameters = parameters
        self.adapterScales = model.adapters.map(\.scale)
        abortCondition.install(on: context)
    }

    /// Makes later decodes apply the model's adapters at `scales` (one per adapter, in load
    /// order), as `llama_set_adapters_lora` does for the whole context: every sequence of a
    /// batch is decoded with the same scales.
    /// The scheduler has checked that there is one scale per adapter (llama.cpp cannot refuse them then).
    package func useAdapterScales(_ scales: [Float]) {
        guard scales != adapterScales else { return }
        model.applyAdapters(at: scales, to: pointer)
        adapterScales = scales
    }

    deinit {
        llama_batch_free(batch)
        LlamaRuntime.freeContext(pointer)
    }

    private var memory: llama_memory_t { llama_get_memory(pointer) }

    /// The cells one sequence can reach: all of them in a unified cache, its own stream's otherwise.
    package var cellsPerSequence: Int { Int(llama_n_ctx_seq(pointer)) }

    /// Waits until all queued computation is finished (needed on GPU backends for timing).
    package func synchronize() {
        llama_synchronize(pointer)
    }

    /// Forgets everything in the KV cache, of every sequence.
    package func clearMemory() {
        mirror?.clearMemory()
        llama_memory_clear(memory, true)
    }

    /// Removes the positions `from…` of `sequence` (all of them for 0); false if llama.cpp cannot
    /// cut a sequence there.
    @discardableResult
    package func removePositions(of sequence: Int32, from start: Int) -> Bool {
        mirror?.removePositions(of: sequence, from: start)
        return llama_memory_seq_rm(memory, sequence, Int32(start), -1)
    }

    /// Makes the positions `0..<count` of `source` also belong to `destination` (which must be
    /// empty). In a unified cache the cells are shared; with a cache per sequence, llama.cpp
    /// copies the source's whole stream at the next decode, and the positions past `count` are
    /// cut. False (and `destination` emptied) when they cannot be cut.
    @discardableResult
    package func sharePrefix(of source: Int32, with destination: Int32, count: Int) -> Bool {
        mirror?.sharePrefix(of: source, with: destination, count: count)
        if streamCount == 1 {
            llama_memory_seq_cp(memory, source, destination, 0, Int32(count))
            return true
        }
        // Across streams llama.cpp copies only whole buffers (it asserts on a range).
        llama_memory_seq_cp(memory, source, destination, -1, -1)
        if llama_memory_seq_rm(memory, destination, Int32(count), -1) { return true }
        removePositions(of: destination, from: 0)
        return false
    }

    /// The smallest position `sequence` still holds (-1 when it is empty).
    package func firstPosition(of sequence: Int32) -> Int {
        Int(llama_memory_seq_pos_min(memory, sequence))
    }

    /// The largest position `sequence` holds (-1 when it is empty).
    package func lastPosition(of sequence: Int32) -> Int {
        Int(llama_memory_seq_pos_max(memory, sequence))
    }

    /// Whether a sliding-window cache has dropped positions of `sequence` that a prefix of
    /// `count` tokens needs (then that prefix cannot be reused).
    package func windowEvicted(in sequence: Int32, before count: Int) -> Bool {
        keptWindow > 0 && firstPosition(of: sequence) > max(0, count - keptWindow)
    }

    /// The positions its cache keeps of a sliding-window model's sequences (0: every position,
    /// as without a sliding window or with the full-size cache).
    package var keptWindow: Int {
        fullSlidingWindowCache ? 0 : Int(llama_model_n_swa(model.pointer))
    }

    /// The serialized state of `sequence` (its KV cache), for saving.
    package func sequenceState(_ sequence: Int32) -> [UInt8] {
        let size = llama_state_seq_get_size(pointer, sequence)
        var data = [UInt8](repeating: 0, count: size)
        let written = data.withUnsafeMutableBufferPointer { llama_state_seq_get_data(pointer, $0.baseAddress, size, sequence) }
        return Array(data.prefix(written))
    }

    /// Restores `sequence` from `state`, which holds the keys and values of `tokenCount` tokens.
    /// - Returns: false when llama.cpp rejects it; the sequence is then empty.
    package func restoreSequenceState(_ state: [UInt8], into sequence: Int32, tokenCount: Int) -> Bool {
        removePositions(of: sequence, from: 0)
        let read = state.withUnsafeBufferPointer { llama_state_seq_set_data(pointer, $0.baseAddress, state.count, sequence) }
        guard read == state.count, lastPosition(of: sequence) == tokenCount - 1 else {
            removePositions(of: sequence, from: 0)
            return false
        }
        return true
    }

    /// One token of a batch: its id, position and sequence, and whether its logits are wanted.
    package struct Entry {
        package var token: Int32
        package var position: Int
        package var sequence: Int32
        package var wantsLogits: Bool
    }

    /// Decodes one batch of at most ``batchSize`` entries. While it runs, llama.cpp stops early
    /// once every flag in `cancellations` is raised.
    /// - Returns: llama.cpp's code: 0 on success, 1 when the cache has no room, 2 when aborted,
    ///   negative on errors. After a failure the caller drops what each sequence gained.
    package func decode(_ entries: [Entry], cancellations: [CancellationFlag]) -> Int32 {
        precondition(entries.count <= batchSize, "a batch larger than n_batch")
        batch.n_tokens = Int32(entries.count)
        for (index, entry) in entries.enumerated() {
            batch.token[index] = entry.token
            batch.pos[index] = Int32(entry.position)
            batch.n_seq_id[index] = 1
            batch.seq_id[index]![0] = entry.sequence
            batch.logits[index] = entry.wantsLogits ? 1 : 0
        }
        return run(batch, cancellations: cancellations)
    }

    /// `llama_decode` of `batch`, stopping early once every flag in `cancellations` is raised.
    private func run(_ batch: llama_batch, cancellations: [CancellationFlag]) -> Int32 {
        abortCondition.flags = cancellations
        defer { abortCondition.flags = [] }
        if model.remoteLoss != nil { return Self.remoteDeviceLostCode }
        let code = llama_decode(pointer, batch)
        guard !model.remoteLinks.isEmpty else { return code }
        // The remote part of the step is read back asynchronously: wait for it, then make sure no
        // server was lost meanwhile (the relay answered for it with zeros: the step does not count).
        llama_synchronize(pointer)
        return model.remoteLoss == nil ? code : Self.remoteDeviceLostCode
    }

    /// Decodes `count` embeddings of `width` floats (an image's, from a projector) at positions
    /// `position…` of `sequence`, without logits: one `llama_decode` of its own, since a batch
    /// holds tokens or embeddings, not both. The batch points at `rows` (nothing is copied). With
    /// `nonCausal`, they attend to each other both ways (llama.cpp's causal attention is off for
    /// the call). Stops early once `cancellation` is raised.
    /// - Returns: llama.cpp's code, as ``decode(_:cancellations:)``'s.
    package func decodeEmbeddings(_ rows: UnsafeBufferPointer<Float>, width: Int, position: Int, sequence: Int32,
                                  nonCausal: Bool, cancellation: CancellationFlag) -> Int32 {
        let count = rows.count / width
        precondition(count > 0 && count <= batchSize && count * width == rows.count, "an embedding batch of the wrong size")
        var positions = (0..<Int32(count)).map { Int32(position) + $0 }
        var sequenceCounts = [Int32](repeating: 1, count: count)
        var outputs = [Int8](repeating: 0, count: count)
        var sequenceID = sequence
        if nonCausal { llama_set_causal_attn(pointer, false) }
        defer { if nonCausal { llama_set_causal_attn(pointer, true) } }
        return withUnsafeMutablePointer(to: &sequenceID) { id in
            var sequenceIDs = [UnsafeMutablePointer<Int32>?](repeating: id, count: count)
            return positions.withUnsafeMutableBufferPointer { positions in
                sequenceCounts.withUnsafeMutableBufferPointer { sequenceCounts in
                    outputs.withUnsafeMutableBufferPointer { outputs in
                        sequenceIDs.withUnsafeMutableBufferPointer { sequenceIDs in
                            let batch = llama_batch(n_tokens: Int32(count), token: nil, embd: UnsafeMutablePointer(mutating: rows.baseAddress),
                                                    pos: positions.baseAddress, n_seq_id: sequenceCounts.baseAddress,
                                                    seq_id: sequenceIDs.baseAddress, logits: outputs.baseAddress)
                            return run(batch, cancellations: [cancellation])
                        }
                    }
                }
            }
        }
    }

    /// The code ``decode(_:cancellations:)`` returns when a remote server of the model is lost.
    package static let remoteDeviceLostCode: Int32 = -100

    /// The error of a failed ``decode(_:cancellations:)``.
    package func error(for code: Int32) -> LocalModel.Error {
        if code == Self.remoteDeviceLostCode, let loss = model.remoteLoss { return loss }
        return .decodeFailed(code: code, reason: Self.describe(code, contextLength))
    }

    /// Evaluates `tokens` at positions `start…` of sequence 0, in chunks of at most
    /// ``batchSize`` tokens, with logits for the last one (the benchmark's decode path).
    /// - Throws: ``LocalModel/Error/decodeFailed(code:reason:)``.
    package func decode(_ tokens: ArraySlice<Int32>, startingAt start: Int) throws {
        var position = start
        var remaining = tokens
        while !remaining.isEmpty {
            let chunk = remaining.prefix(batchSize)
            remaining = remaining.dropFirst(chunk.count)
            let entries = chunk.enumerated().map { offset, token in
                Entry(token: token, position: position + offset, sequence: 0,
                      wantsLogits: remaining.isEmpty && offset == chunk.count - 1)
            }
            let code = decode(entries, cancellations: [])
            guard code == 0 else { throw error(for: code) }
            position += chunk.count
        }
    }

    /// The logits of output `index` of the last batch (nil when it has none). After the first
    /// call the values stay put until the next decode, so other threads may read them.
    package func logits(at index: Int32) -> UnsafeMutablePointer<Float>? {
        llama_get_logits_ith(pointer, index)
    }

    /// What a `llama_decode` code means.
    package static func describe(_ code: Int32, _ contextLength: Int) -> String {
        switch code {
        case 1: "no room left in the KV cache (\(contextLength) cells)"
        case 2: "aborted"
        case -1: "invalid batch"
        default: "fatal error inside llama.cpp"
        }
    }
}
