import Foundation

extension LocalModel.Configuration {
    /// The context the model computes in: its length, its KV cache and how a step is batched and threaded.
    ///
    /// The configuration's field-by-field initializer sets every group at once; a group is for reading
    /// and changing the fields of one concern together.
    public struct Context: Sendable, Hashable {
        /// The context length in tokens: prompt plus answer. `nil` means the model's
        /// training length, capped at 4096 to keep the KV cache small. Completions use a
        /// context of this length; a conversation holds at most this many tokens unless its
        /// own configuration says otherwise.
        public var length: Int?
        /// The most prompt tokens evaluated in one step (llama.cpp's `n_batch`);
        /// longer prompts are evaluated in chunks.
        public var batchSize: Int
        /// The physical batch size (llama.cpp's `n_ubatch`).
        public var microBatchSize: Int
        /// CPU threads; `nil` means the number of active cores (at least 1).
        public var threads: Int?
        /// How the sequences keep their KV cache (see ``CacheLayout``); nil: cells per sequence
        /// on the CPU, one unified pool where layers are offloaded to a GPU (each the layout
        /// measured faster there: ``cacheLayoutInEffect``). With one sequence both layouts are the same.
        public var cacheLayout: CacheLayout?
        /// Keep every position of a sliding-window model's cache (llama.cpp's `swa_full`), so
        /// that any cached prefix can be reused by a later request. Costs a full-size cache on
        /// such models; other models ignore it.
        public var usesFullSlidingWindowCache: Bool
        /// The number format of the KV cache's keys (see ``CacheType``); `f16` by default.
        public var keyCacheType: CacheType
        /// The number format of the KV cache's values (see ``CacheType``); `f16` by default. A
        /// quantized one needs ``flashAttention`` other than `.off`.
        public var valueCacheType: CacheType
        /// Whether attention runs fused (see ``FlashAttention``); `.auto` by default.
        public var flashAttention: FlashAttention
        /// Evaluated prompts kept on disk for other processes (see ``LocalModel/PromptCache``);
        /// nil (the default): none.
        public var promptCache: LocalModel.PromptCache?

        /// Creates the group; every argument has a default.
        public init(
            length: Int? = nil,
            batchSize: Int = 2048,
            microBatchSize: Int = 512,
            threads: Int? = nil,
            cacheLayout: CacheLayout? = nil,
            usesFullSlidingWindowCache: Bool = true,
            keyCacheType: CacheType = .f16,
            valueCacheType: CacheType = .f16,
            flashAttention: FlashAttention = .auto,
            promptCache: LocalModel.PromptCache? = nil
        ) {
            self.length = length
            self.batchSize = batchSize
            self.microBatchSize = microBatchSize
            self.threads = threads
            self.cacheLayout = cacheLayout
            self.usesFullSlidingWindowCache = usesFullSlidingWindowCache
            self.keyCacheType = keyCacheType
            self.valueCacheType = valueCacheType
            self.flashAttention = flashAttention
            self.promptCache = promptCache
        }
    }
}
