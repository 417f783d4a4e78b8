import CLlama
import Foundation

/// A GGUF language model loaded into memory, ready to generate.
///
/// ```swift
/// let model = try await LocalModel.load(from: URL(filePath: "gemma-3-270m-q4_k_m.gguf"))
/// for try await chunk in model.streamCompletion("Once upon a time", options: .init(maximumResponseTokens: 64)) {
///     print(chunk, terminator: "")
/// }
/// ```
///
/// A model owns its llama.cpp handles, and an inference context for completions
/// (created on first use), and runs all its work on a dedicated thread, which the
/// model's ``Conversation``s share. Requests are served one at a time, in the
/// order they arrive: a second request waits for the first and never
/// interleaves with it. The memory is released when the last reference to the
/// model goes away.
public actor LocalModel {
    /// A token id of the model's vocabulary.
    public typealias Token = Int32

    /// The file the model was loaded from.
    public nonisolated let url: URL
    /// The file's header: architecture, size, quantization, metadata.
    public nonisolated let file: GGUFFile
    /// The configuration the model was loaded with.
    public nonisolated let configuration: Configuration
    /// The context length in tokens (prompt plus answer).
    public nonisolated let contextLength: Int
    /// How long loading took.
    public nonisolated let loadDuration: Duration

    package nonisolated let handle: ModelHandle
    package nonisolated let tokenizer: Tokenizer
    private nonisolated let executor: EngineExecutor
    private var completionContext: InferenceContext?

    /// The executor that runs this model's work on its own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    private init(url: URL, file: GGUFFile, configuration: Configuration, handle: ModelHandle,
                 executor: EngineExecutor, loadDuration: Duration) {
        self.url = url
        self.file = file
        self.configuration = configuration
        self.handle = handle
        self.tokenizer = Tokenizer(handle: handle)
        self.contextLength = configuration.contextLength
            ?? min(file.trainingContextLength ?? Configuration.defaultContextLength, Configuration.defaultContextLength)
        self.executor = executor
        self.loadDuration = loadDuration
    }

    deinit {
        executor.shutDown()
    }

    /// Loads the GGUF model at `url`.
    ///
    /// For a model split by llama.cpp's `gguf-split` (`NAME-00001-of-00003.gguf`, …), `url` is
    /// its first part, and the other parts are loaded from the same folder; every part's header
    /// is read and checked first (``GGUFFile/init(modelAt:)``). Loading another part than the
    /// first is an error that names the first.
    ///
    /// The file's header is validated before llama.cpp sees it, so a missing,
    /// empty, truncated or foreign file, or one whose metadata llama.cpp would
    /// abort on (``GGUFFile/loadabilityProblem``), gives a typed error instead of an abort.
    /// - Parameters:
    ///   - url: a `.gguf` file.
    ///   - configuration: context length, threads, GPU layers and memory mapping.
    /// - Throws: ``LocalModel/Error/modelFileNotFound(path:)``, ``LocalModel/Error/invalidModelFile(path:reason:)``,
    ///   ``LocalModel/Error/splitPartNotFirst(path:part:count:firstPart:)``, ``LocalModel/Error/missingSplitPart(path:part:count:)``,
    ///   ``LocalModel/Error/mismatchedSplitPart(path:reason:)``,
    ///   ``LocalModel/Error/unloadableModelFile(path:key:value:reason:)``, ``LocalModel/Error/modelLoadFailed(path:reason:)``, ``LocalModel/Error/invalidOption(name:reason:)``
    ///   or ``LocalModel/Error/contextCreationFailed(reason:)``.
    public static func load(from url: URL, configuration: Configuration = .init()) async throws -> LocalModel {
        try configuration.validate()
        LlamaRuntime.ensureInitialized()
        let executor = EngineExecutor(name: "LocalLLMKit.\(url.lastPathComponent)")
        do {
            let clock = ContinuousClock()
            let start = clock.now
            let (file, handle) = try await executor.run {
                let file = try GGUFFile(modelAt: url)
                // Values that pass ggml's reader can still abort llama.cpp: check them first
                // (for a split model, against the tensors of all its parts).
                try file.checkLoadability()
                return (file, try loadWeights(file: file, configuration: configuration))
            }
            return LocalModel(url: url, file: file, configuration: configuration, handle: handle,
                              executor: executor, loadDuration: clock.now - start)
        } catch {
            executor.shutDown()
            throw error
        }
    }

    private static func loadWeights(file: GGUFFile, configuration: Configuration) throws -> ModelHandle {
        let url = file.url
        var parameters = llama_model_default_params()
        if !configuration.usesMemoryMap { parameters.load_mode = LLAMA_LOAD_MODE_NONE }
        parameters.vocab_only = configuration.vocabularyOnly
        if let layers = configuration.gpuLayers {
            parameters.n_gpu_layers = Int32(clamping: layers)
        } else {
            parameters.n_gpu_layers = LlamaRuntime.supportsGPUOffload ? -1 : 0
        }
        let (model, errors) = LlamaLog.collectingErrors { () -> OpaquePointer? in
            guard file.partURLs.count > 1 else { return llama_model_load_from_file(url.path, parameters) }
            // The very parts that were checked, rather than names llama.cpp derives again.
            let paths = file.partURLs.map { strdup($0.path) }
            defer { paths.forEach { free($0) } }
            var arguments = paths.map { UnsafePointer<CChar>($0) }
            return arguments.withUnsafeMutableBufferPointer {
                llama_model_load_from_splits($0.baseAddress, $0.count, parameters)
            }
        }
        guard let model else {
            throw LocalModel.Error.modelLoadFailed(path: url.path, reason: errors.summary ?? "llama.cpp could not load it")
        }
        return ModelHandle(pointer: model)
    }

    /// The context that completions use, created on first use.
    /// Runs `body` on the model's executor, where all llama.cpp work on its contexts happens
    /// (work that no actor of the model owns yet, such as filling a new context).
    package func perform<T: Sendable>(_ body: @Sendable () throws -> T) throws -> T {
        try body()
    }

    package func sharedContext() throws -> InferenceContext {
        if let completionContext { return completionContext }
        // Completions never reuse a cached prefix, so a sliding-window cache is enough.
        let context = try makeContext(contextLength: contextLength, fullSlidingWindowCache: false)
        completionContext = context
        return context
    }

    /// A new inference context for this model.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package nonisolated func makeContext(contextLength: Int, fullSlidingWindowCache: Bool,
                                 threads: Int? = nil) throws -> InferenceContext {
        guard !configuration.vocabularyOnly else {
            throw LocalModel.Error.contextCreationFailed(reason: "the model was loaded with vocabularyOnly, so it cannot generate")
        }
        // Every caller's values end here (saved conversations and benchmarks included): check
        // them once, so that none can trap in a conversion below.
        guard (1...(1 << 24)).contains(contextLength) else {
            throw LocalModel.Error.invalidOption(name: "contextLength", reason: "\(contextLength) is not between 1 and \(1 << 24)")
        }
        let threadCount = threads ?? configuration.effectiveThreads
        guard (1...1024).contains(threadCount) else {
            throw LocalModel.Error.invalidOption(name: "threads", reason: "\(threadCount) is not between 1 and 1024")
        }
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(contextLength)
        parameters.n_batch = UInt32(configuration.batchSize)
        parameters.n_ubatch = UInt32(min(configuration.microBatchSize, configuration.batchSize))
        parameters.n_seq_max = 1
        parameters.n_threads = Int32(threadCount)
        parameters.n_threads_batch = Int32(threadCount)
        parameters.no_perf = false
        parameters.swa_full = fullSlidingWindowCache
        return try InferenceContext(model: handle, parameters: parameters)
    }
}
