import Foundation

extension LocalModel {
    /// How to load a model and size its context.
    ///
    /// ```swift
    /// let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 8192, threads: 4))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The context length in tokens: prompt plus answer. `nil` means the model's
        /// training length, capped at 4096 to keep the KV cache small. Completions use a
        /// context of this length; a conversation holds at most this many tokens unless its
        /// own configuration says otherwise.
        public var contextLength: Int?
        /// The most prompt tokens evaluated in one step (llama.cpp's `n_batch`);
        /// longer prompts are evaluated in chunks.
        public var batchSize: Int
        /// The physical batch size (llama.cpp's `n_ubatch`).
        public var microBatchSize: Int
        /// CPU threads; `nil` means the number of active cores (at least 1).
        public var threads: Int?
        /// Layers to offload to the GPU (and to the devices of ``rpcServers``); `nil` means all
        /// of them when this machine has a GPU or ``rpcServers`` names servers, 0 keeps
        /// everything on this machine's CPU.
        public var gpuLayers: Int?
        /// Let llama.cpp map the file into memory where that helps (its default);
        /// false reads the weights into allocated memory instead.
        public var usesMemoryMap: Bool
        /// Load only the vocabulary and metadata, not the weights: enough to tokenize and
        /// render chat templates, fast, but the model cannot generate.
        public var vocabularyOnly: Bool
        /// How many requests generate at once (llama.cpp's `n_seq_max`): completions and
        /// conversation turns share one context, and every decode step advances all of them
        /// together. Each sequence may hold ``contextLength`` tokens, so the KV cache grows
        /// with this number (and only with it, not with the number of conversations).
        public var parallelSequences: Int
        /// How the sequences keep their KV cache (see ``CacheLayout``); nil: cells per sequence
        /// on the CPU, one unified pool where layers are offloaded to a GPU (each the layout
        /// measured faster there: ``cacheLayoutInEffect``). With one sequence both layouts are the same.
        public var cacheLayout: CacheLayout?
        /// How many requests may wait for a free sequence; one more is refused with
        /// ``LocalModel/Error/busy(queuedRequests:)``.
        public var maximumQueuedRequests: Int
        /// Keep every position of a sliding-window model's cache (llama.cpp's `swa_full`), so
        /// that any cached prefix can be reused by a later request. Costs a full-size cache on
        /// such models; other models ignore it.
        public var usesFullSlidingWindowCache: Bool
        /// How generation drafts tokens ahead (see ``Speculation``); ``Speculation/none`` by default.
        public var speculation: Speculation
        /// Whether the CPU repacks quantized weights into its other layouts (llama.cpp's
        /// `--repack`); nil (the default) and false: no, the weights keep the file's layout.
        /// Repacked weights multiply one row and several rows in different orders, so a batch's
        /// logits differ from one token's in their last bits, and a model loaded with speculation
        /// would answer greedily other than the same model without it, from its first token on
        /// (see ``Speculation``). Repacking changed no speed measurable on this project's test
        /// CPU (docs/PERFORMANCE.md); `true` turns it on where it pays.
        public var repacksWeights: Bool?
        /// Fits a nil ``contextLength`` and a nil ``gpuLayers`` to the memory free on this machine
        /// (see ``MemoryFit``); nil (the default): the training length capped at
        /// ``defaultContextLength``, and every layer on a GPU when there is one.
        public var memoryFit: MemoryFit?
        /// llama.cpp RPC servers (`ggml-rpc`, such as `llmkit rpc-server`) whose devices hold some
        /// of the model's layers, as `host:port`. The offloaded layers (``gpuLayers``; nil: all)
        /// are split over the remote devices and this machine's GPUs in proportion to their free
        /// memory, or by ``tensorSplit``; the rest stay on this machine's CPU. ggml-rpc has no
        /// authentication or encryption: use servers on a network you trust. A server that goes
        /// away fails the model's requests with ``LocalModel/Error/remoteDeviceLost(endpoint:reason:)``.
        public var rpcServers: [String]
        /// The share of offloaded layers each device takes (llama.cpp's `--tensor-split`): the
        /// remote devices of ``rpcServers`` in order, then this machine's GPUs; nil: in
        /// proportion to their free memory.
        public var tensorSplit: [Double]?
        /// Whether the text work of a step's tokens runs once the next step is queued (see
        /// ``BatchScheduler``); nil: where layers are offloaded to a GPU, on which `llama_decode`
        /// returns before the work is done. Tests set it to run that order on the CPU too.
        package var defersTextWork: Bool?
        /// The projector that lets the model take images (or audio): ``Projector/automatic``
        /// (the default) finds one beside the model file.
        public var projector: Projector
        /// How much media one request may carry (see ``MediaAttachment/Limits``).
        public var mediaLimits: MediaAttachment.Limits
        /// The number format of the KV cache's keys (see ``CacheType``); `f16` by default.
        public var keyCacheType: CacheType
        /// The number format of the KV cache's values (see ``CacheType``); `f16` by default. A
        /// quantized one needs ``flashAttention`` other than `.off`.
        public var valueCacheType: CacheType
        /// Whether attention runs fused (see ``FlashAttention``); `.auto` by default.
        public var flashAttention: FlashAttention
        /// LoRA adapters applied over the weights, each at its scale (see ``Adapter``); checked
        /// against the model before llama.cpp reads them.
        public var adapters: [Adapter]
        /// Control vectors added to the hidden state, each at its scale and summed (see
        /// ``ControlVector``); checked against the model before its weights are read.
        public var controlVectors: [ControlVector]
        /// The layers the control vectors steer, both ends included (llama.cpp's
        /// `--control-vector-layer-range`); nil: every layer from 1.
        public var controlVectorLayers: ClosedRange<Int>?

        /// Creates a configuration; every argument has a default.
        public init(
            contextLength: Int? = nil,
            batchSize: Int = 2048,
            microBatchSize: Int = 512,
            threads: Int? = nil,
            gpuLayers: Int? = nil,
            usesMemoryMap: Bool = true,
            vocabularyOnly: Bool = false,
            parallelSequences: Int = 1,
            cacheLayout: CacheLayout? = nil,
            maximumQueuedRequests: Int = 64,
            usesFullSlidingWindowCache: Bool = true,
            speculation: Speculation = .none,
            repacksWeights: Bool? = nil,
            memoryFit: MemoryFit? = nil,
            rpcServers: [String] = [],
            tensorSplit: [Double]? = nil,
            projector: Projector = .automatic,
            mediaLimits: MediaAttachment.Limits = .default,
            keyCacheType: CacheType = .f16,
            valueCacheType: CacheType = .f16,
            flashAttention: FlashAttention = .auto,
            adapters: [Adapter] = [],
            controlVectors: [ControlVector] = [],
            controlVectorLayers: ClosedRange<Int>? = nil
        ) {
            self.contextLength = contextLength
            self.batchSize = batchSize
            self.microBatchSize = microBatchSize
            self.threads = threads
            self.gpuLayers = gpuLayers
            self.usesMemoryMap = usesMemoryMap
            self.vocabularyOnly = vocabularyOnly
            self.parallelSequences = parallelSequences
            self.cacheLayout = cacheLayout
            self.maximumQueuedRequests = maximumQueuedRequests
            self.usesFullSlidingWindowCache = usesFullSlidingWindowCache
            self.speculation = speculation
            self.repacksWeights = repacksWeights
            self.memoryFit = memoryFit
            self.rpcServers = rpcServers
            self.tensorSplit = tensorSplit
            self.projector = projector
            self.mediaLimits = mediaLimits
            self.keyCacheType = keyCacheType
            self.valueCacheType = valueCacheType
            self.flashAttention = flashAttention
            self.adapters = adapters
            self.controlVectors = controlVectors
            self.controlVectorLayers = controlVectorLayers
        }

        /// Whether the CPU repacks weights (see ``repacksWeights``).
        package var repacksWeightsInEffect: Bool {
            repacksWeights ?? false
        }

        /// The most sequences one context can hold (llama.cpp's `LLAMA_MAX_SEQ`).
        public static let maximumParallelSequences = 256

        /// The default context length cap when ``contextLength`` is nil.
        public static let defaultContextLength = 4096

        /// Whether the text work of a step's tokens waits until the next step is queued. Never
        /// with speculation: a draft's tokens are checked one after another, each against the
        /// text before it, so that a stop sequence inside a draft stops where it would without.
        package var defersTextWorkInEffect: Bool {
            guard !speculation.isEnabled else { return false }
            return defersTextWork ?? (!vocabularyOnly && LlamaRuntime.supportsGPUOffload && gpuLayers != 0)
        }

        /// Whether every layer computes on this machine's CPU: no GPU layers, no RPC servers.
        package var computesOnCPUOnly: Bool {
            !(LlamaRuntime.supportsGPUOffload && gpuLayers != 0) && rpcServers.isEmpty
        }

        /// The cache layout in effect (see ``cacheLayout``).
        public var cacheLayoutInEffect: CacheLayout {
            cacheLayout ?? (!vocabularyOnly && LlamaRuntime.supportsGPUOffload && gpuLayers != 0 ? .unified : .perSequence)
        }

        /// The thread count in effect.
        public var effectiveThreads: Int {
            threads ?? max(ProcessInfo.processInfo.activeProcessorCount, 1)
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
        public func validate() throws {
            func fail(_ name: String, _ reason: String) -> LocalModel.Error { .invalidOption(name: name, reason: reason) }
            if let contextLength, !(1...(1 << 24)).contains(contextLength) {
                throw fail("contextLength", "\(contextLength) is not between 1 and \(1 << 24)")
            }
            if !(1...(1 << 20)).contains(batchSize) { throw fail("batchSize", "\(batchSize) is not between 1 and \(1 << 20)") }
            // Media limits bound what an attachment may make the process allocate: each must be
            // positive, and small enough that sizes computed from them cannot overflow.
            let limits = mediaLimits
            if !(1...(1 << 40)).contains(limits.bytes) { throw fail("mediaLimits.bytes", "\(limits.bytes) is not between 1 and \(1 << 40)") }
            if !(1...(1 << 40)).contains(limits.pixels) { throw fail("mediaLimits.pixels", "\(limits.pixels) is not between 1 and \(1 << 40)") }
            if !(1...65_535).contains(limits.side) { throw fail("mediaLimits.side", "\(limits.side) is not between 1 and 65535") }
            if !(0...4096).contains(limits.count) { throw fail("mediaLimits.count", "\(limits.count) is not between 0 and 4096") }
            if !(1...(1 << 20)).contains(microBatchSize) {
                throw fail("microBatchSize", "\(microBatchSize) is not between 1 and \(1 << 20)")
            }
            if let threads, !(1...1024).contains(threads) { throw fail("threads", "\(threads) is not between 1 and 1024") }
            if let gpuLayers, gpuLayers < 0 { throw fail("gpuLayers", "\(gpuLayers) is negative") }
            if !(1...Self.maximumParallelSequences).contains(parallelSequences) {
                throw fail("parallelSequences", "\(parallelSequences) is not between 1 and \(Self.maximumParallelSequences)")
            }
            if batchSize < parallelSequences {
                throw fail("batchSize", "\(batchSize) is smaller than parallelSequences (\(parallelSequences)): "
                           + "every decode step carries one token of each sequence")
            }
            if let contextLength, contextLength * parallelSequences > 1 << 24 {
                throw fail("contextLength", "\(contextLength) tokens for each of \(parallelSequences) sequences exceeds \(1 << 24) in all")
            }
            if !(0...(1 << 20)).contains(maximumQueuedRequests) {
                throw fail("maximumQueuedRequests", "\(maximumQueuedRequests) is not between 0 and \(1 << 20)")
            }
            try validateCacheTypes()
            for (index, adapter) in adapters.enumerated() where !adapter.scale.isFinite {
                throw fail("adapters[\(index)].scale", "\(adapter.scale) is not a finite number")
            }
            for (index, vector) in controlVectors.enumerated() where !vector.scale.isFinite {
                throw fail("controlVectors[\(index)].scale", "\(vector.scale) is not a finite number")
            }
            if let layers = controlVectorLayers, layers.lowerBound < 1 {
                throw fail("controlVectorLayers", "\(layers.lowerBound)...\(layers.upperBound) starts below layer 1")
            }
            try speculation.validate()
            try memoryFit?.validate()
            try validateDevices()
        }
    }
}
