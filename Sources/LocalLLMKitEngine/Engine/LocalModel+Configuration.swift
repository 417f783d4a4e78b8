import Foundation

extension LocalModel {
    /// How to load a model and size its context.
    ///
    /// ```swift
    /// let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 8192, threads: 4))
    /// ```
    public struct Configuration: Sendable, Equatable {
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
        /// Layers to offload to the GPU; `nil` means all of them when a GPU backend
        /// exists, 0 keeps everything on the CPU.
        public var gpuLayers: Int?
        /// Let llama.cpp map the file into memory where that helps (its default);
        /// false reads the weights into allocated memory instead.
        public var usesMemoryMap: Bool
        /// Load only the vocabulary and metadata, not the weights: enough to tokenize and
        /// render chat templates, fast, but the model cannot generate.
        public var vocabularyOnly: Bool

        /// Creates a configuration; every argument has a default.
        public init(
            contextLength: Int? = nil,
            batchSize: Int = 2048,
            microBatchSize: Int = 512,
            threads: Int? = nil,
            gpuLayers: Int? = nil,
            usesMemoryMap: Bool = true,
            vocabularyOnly: Bool = false
        ) {
            self.contextLength = contextLength
            self.batchSize = batchSize
            self.microBatchSize = microBatchSize
            self.threads = threads
            self.gpuLayers = gpuLayers
            self.usesMemoryMap = usesMemoryMap
            self.vocabularyOnly = vocabularyOnly
        }

        /// The default context length cap when ``contextLength`` is nil.
        public static let defaultContextLength = 4096

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
            if !(1...(1 << 20)).contains(microBatchSize) {
                throw fail("microBatchSize", "\(microBatchSize) is not between 1 and \(1 << 20)")
            }
            if let threads, !(1...1024).contains(threads) { throw fail("threads", "\(threads) is not between 1 and 1024") }
            if let gpuLayers, gpuLayers < 0 { throw fail("gpuLayers", "\(gpuLayers) is negative") }
        }
    }
}
