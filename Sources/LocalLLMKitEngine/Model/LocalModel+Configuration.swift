import Foundation

extension LocalModel {
    /// How to load a model and size its context.
    ///
    /// ```swift
    /// let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 8192, threads: 4))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// What the model reads and where its layers compute (see ``Weights``).
        public var weights: Weights
        /// The context the model computes in: length, KV cache, batching, threads (see ``Context``).
        public var context: Context
        /// How requests share the model (see ``Serving``).
        public var serving: Serving
        /// Fits a nil ``LocalModel/Configuration/Context/length`` and a nil ``LocalModel/Configuration/Weights/gpuLayers`` to the memory free on this machine
        /// (see ``MemoryFit``); nil (the default): the training length capped at
        /// ``defaultContextLength``, and every layer on a GPU when there is one.
        public var memoryFit: MemoryFit?
        /// Whether the text work of a step's tokens runs once the next step is queued (see
        /// ``BatchScheduler``); nil: where layers are offloaded to a GPU, on which `llama_decode`
        /// returns before the work is done. Tests set it to run that order on the CPU too.
        package var defersTextWork: Bool?

        /// Creates a configuration from its groups.
        public init(weights: Weights = .init(), context: Context = .init(), serving: Serving = .init(), memoryFit: MemoryFit? = nil) {
            self.weights = weights
            self.context = context
            self.serving = serving
            self.memoryFit = memoryFit
        }

        /// Creates a configuration field by field (each argument goes to its group); every
        /// argument has a default.
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
            controlVectorLayers: ClosedRange<Int>? = nil,
            promptCache: PromptCache? = nil
        ) {
            self.weights = Weights(gpuLayers: gpuLayers, usesMemoryMap: usesMemoryMap, vocabularyOnly: vocabularyOnly, repacksWeights: repacksWeights, rpcServers: rpcServers, tensorSplit: tensorSplit, adapters: adapters, controlVectors: controlVectors, controlVectorLayers: controlVectorLayers, projector: projector)
            self.context = Context(length: contextLength, batchSize: batchSize, microBatchSize: microBatchSize, threads: threads, cacheLayout: cacheLayout, usesFullSlidingWindowCache: usesFullSlidingWindowCache, keyCacheType: keyCacheType, valueCacheType: valueCacheType, flashAttention: flashAttention, promptCache: promptCache)
            self.serving = Serving(parallelSequences: parallelSequences, maximumQueuedRequests: maximumQueuedRequests, speculation: speculation, mediaLimits: mediaLimits)
            self.memoryFit = memoryFit
        }

        /// Whether the CPU repacks weights (see ``LocalModel/Configuration/Weights/repacksWeights``).
        package var repacksWeightsInEffect: Bool {
            weights.repacksWeights ?? false
        }

        /// The most sequences one context can hold (llama.cpp's `LLAMA_MAX_SEQ`).
        public static let maximumParallelSequences = 256

        /// The default context length cap when ``LocalModel/Configuration/Context/length`` is nil.
        public static let defaultContextLength = 4096

        /// Whether the text work of a step's tokens waits until the next step is queued. Never
        /// with speculation: a draft's tokens are checked one after another, each against the
        /// text before it, so that a stop sequence inside a draft stops where it would without.
        package var defersTextWorkInEffect: Bool {
            guard !serving.speculation.isEnabled else { return false }
            return defersTextWork ?? (!weights.vocabularyOnly && LlamaRuntime.supportsGPUOffload && weights.gpuLayers != 0)
        }

        /// Whether every layer computes on this machine's CPU: no GPU layers, no RPC servers.
        package var computesOnCPUOnly: Bool {
            !(LlamaRuntime.supportsGPUOffload && weights.gpuLayers != 0) && weights.rpcServers.isEmpty
        }

        /// The cache layout in effect (see ``LocalModel/Configuration/Context/cacheLayout``).
        public var cacheLayoutInEffect: CacheLayout {
            context.cacheLayout ?? (!weights.vocabularyOnly && LlamaRuntime.supportsGPUOffload && weights.gpuLayers != 0 ? .unified : .perSequence)
        }

        /// The thread count in effect.
        public var effectiveThreads: Int {
            context.threads ?? max(ProcessInfo.processInfo.activeProcessorCount, 1)
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
        public func validate() throws {
            func fail(_ name: String, _ reason: String) -> LocalModel.Error { .invalidOption(name: name, reason: reason) }
            if let contextLength = context.length, !(1...(1 << 24)).contains(contextLength) {
                throw fail("contextLength", "\(contextLength) is not between 1 and \(1 << 24)")
            }
            if !(1...(1 << 20)).contains(context.batchSize) { throw fail("batchSize", "\(context.batchSize) is not between 1 and \(1 << 20)") }
            // Media limits bound what an attachment may make the process allocate: each must be
            // positive, and small enough that sizes computed from them cannot overflow.
            let limits = serving.mediaLimits
            if !(1...(1 << 40)).contains(limits.bytes) { throw fail("mediaLimits.bytes", "\(limits.bytes) is not between 1 and \(1 << 40)") }
            if !(1...(1 << 40)).contains(limits.pixels) { throw fail("mediaLimits.pixels", "\(limits.pixels) is not between 1 and \(1 << 40)") }
            if !(1...65_535).contains(limits.side) { throw fail("mediaLimits.side", "\(limits.side) is not between 1 and 65535") }
            if !(0...4096).contains(limits.count) { throw fail("mediaLimits.count", "\(limits.count) is not between 0 and 4096") }
            if !(1...(1 << 20)).contains(context.microBatchSize) {
                throw fail("microBatchSize", "\(context.microBatchSize) is not between 1 and \(1 << 20)")
            }
            if let threads = context.threads, !(1...1024).contains(threads) { throw fail("threads", "\(threads) is not between 1 and 1024") }
            if let gpuLayers = weights.gpuLayers, gpuLayers < 0 { throw fail("gpuLayers", "\(gpuLayers) is negative") }
            if !(1...Self.maximumParallelSequences).contains(serving.parallelSequences) {
                throw fail("parallelSequences", "\(serving.parallelSequences) is not between 1 and \(Self.maximumParallelSequences)")
            }
            if context.batchSize < serving.parallelSequences {
                throw fail("batchSize", "\(context.batchSize) is smaller than parallelSequences (\(serving.parallelSequences)): "
                           + "every decode step carries one token of each sequence")
            }
            if let contextLength = context.length, contextLength * serving.parallelSequences > 1 << 24 {
                throw fail("contextLength", "\(contextLength) tokens for each of \(serving.parallelSequences) sequences exceeds \(1 << 24) in all")
            }
            if !(0...(1 << 20)).contains(serving.maximumQueuedRequests) {
                throw fail("maximumQueuedRequests", "\(serving.maximumQueuedRequests) is not between 0 and \(1 << 20)")
            }
            try validateCacheTypes()
            for (index, adapter) in weights.adapters.enumerated() where !adapter.scale.isFinite {
                throw fail("adapters[\(index)].scale", "\(adapter.scale) is not a finite number")
            }
            for (index, vector) in weights.controlVectors.enumerated() where !vector.scale.isFinite {
                throw fail("controlVectors[\(index)].scale", "\(vector.scale) is not a finite number")
            }
            if let layers = weights.controlVectorLayers, layers.lowerBound < 1 {
                throw fail("controlVectorLayers", "\(layers.lowerBound)...\(layers.upperBound) starts below layer 1")
            }
            try serving.speculation.validate()
            if let cache = context.promptCache {
                if !(1...(1 << 24)).contains(cache.minimumTokens) {
                    throw fail("promptCache.minimumTokens", "\(cache.minimumTokens) is not between 1 and \(1 << 24)")
                }
                if cache.maximumBytes < 1 { throw fail("promptCache.maximumBytes", "\(cache.maximumBytes) is not positive") }
                if serving.speculation.isEnabled {
                    throw fail("promptCache", "it cannot be combined with speculation, whose drafting state the cache does not keep")
                }
            }
            try memoryFit?.validate()
            try validateDevices()
        }
    }
}
