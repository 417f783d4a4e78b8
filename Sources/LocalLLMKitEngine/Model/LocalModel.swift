import CLlama
import Foundation
import Synchronization

/// A GGUF language model loaded into memory, ready to generate.
///
/// ```swift
/// let model = try await LocalModel.load(from: URL(filePath: "gemma-3-270m-q4_k_m.gguf"))
/// for try await chunk in model.streamCompletion("Once upon a time", options: .init(maximumResponseTokens: 64)) {
///     print(chunk, terminator: "")
/// }
/// ```
///
/// A model owns its llama.cpp handles and one inference context (created on first use),
/// with ``LocalModel/Configuration/Serving/parallelSequences`` sequences that its completions and its
/// ``Conversation``s share. Up to that many requests generate at once, advancing together
/// in every decode step; more wait in a first-come, first-served queue. A new request
/// starts from the longest prefix of its prompt already in the cache (a shared system
/// prompt, an earlier turn). All work runs on a dedicated thread. The memory is released
/// when the last reference to the model goes away.
///
/// ```swift
/// let model = try await LocalModel.load(from: url, configuration: .init(parallelSequences: 4))
/// async let first = model.complete("The capital of France is", options: .init(maximumResponseTokens: 8))
/// async let second = model.complete("The capital of Italy is", options: .init(maximumResponseTokens: 8))
/// let (a, b) = try await (first, second)      // generated in the same decode steps
/// ```
public actor LocalModel {
    /// A token id of the model's vocabulary.
    public typealias Token = Int32

    /// The file the model was loaded from.
    public nonisolated let url: URL
    /// The file's header: architecture, size, quantization, metadata.
    public nonisolated let file: GGUFFile
    /// The file's recommended sampling as settings, read once: what a request's `nil` sampling
    /// fields take (see ``generate(_:)``).
    nonisolated let recommendedSampling: CompletionOptions.Sampling
    /// The configuration the model was loaded with.
    public nonisolated let configuration: Configuration
    /// ``configuration`` as it applies to this model: its speculation resolved
    /// (``Configuration/Speculation/automatic`` becomes what the file supports), and with a
    /// ``Configuration/memoryFit``, the context length and GPU layers of ``memoryPlan``.
    package nonisolated let effectiveConfiguration: Configuration
    /// With ``Configuration/memoryFit``: how the model was fitted to memory, and why; nil without.
    public nonisolated let memoryPlan: MemoryPlan?
    /// The context length in tokens (prompt plus answer).
    public nonisolated let contextLength: Int
    /// How long loading took.
    public nonisolated let loadDuration: Duration

    package nonisolated let handle: ModelHandle
    /// The draft model of ``Configuration/Speculation/draftModel(at:maximumDraft:)``, loaded beside this one.
    package nonisolated let draftHandle: ModelHandle?
    /// The projector that turns images (or audio) into embeddings (``LocalModel/Configuration/Weights/projector``).
    package nonisolated let projector: ProjectorHandle?
    package nonisolated let tokenizer: Tokenizer
    private nonisolated let executor: EngineExecutor
    var batchScheduler: BatchScheduler?
    /// How many shared contexts the model has created: one once it has generated, whatever
    /// the number of requests and conversations.
    package private(set) var sharedContextCount = 0
    /// The contexts that ``embeddings(for:options:)`` created, one per pooling used.
    var embeddingContexts: [EmbeddingContext.Pooling: EmbeddingContext] = [:]
    /// Whose turn it is to embed, and who waits (see ``EmbeddingTurns``).
    var embeddingTurns = EmbeddingTurns()
    /// Generation requests running or on their way to the model's thread: read by embedding
    /// work, which gives way to them, while it holds that thread.
    package nonisolated let generationsInFlight = Atomic<Int>(0)
    /// The load as other threads read it without waiting for the model's thread (`/metrics`).
    package nonisolated let loadGauges = LoadGauges()

    /// The executor that runs this model's work on its own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    private init(url: URL, file: GGUFFile, configuration: Configuration, effectiveConfiguration: Configuration,
                 memoryPlan: MemoryPlan?, handle: ModelHandle, draftHandle: ModelHandle?, projector: ProjectorHandle?,
                 executor: EngineExecutor, loadDuration: Duration) {
        self.url = url
        self.file = file
        self.recommendedSampling = CompletionOptions.Sampling(recommendedBy: file.recommendedSampling)
        self.configuration = configuration
        self.effectiveConfiguration = effectiveConfiguration
        self.memoryPlan = memoryPlan
        self.handle = handle
        self.draftHandle = draftHandle
        self.projector = projector
        self.tokenizer = Tokenizer(handle: handle)
        self.contextLength = effectiveConfiguration.context.length
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
    ///
    /// With a ``Configuration/memoryFit``, the open context length and GPU layers are planned
    /// first (``memoryPlan``), and the shared context is created before this returns; if it
    /// cannot be created at the planned size, loading retries a tier smaller.
    /// - Parameters:
    ///   - url: a `.gguf` file.
    ///   - configuration: context length, threads, GPU layers and memory mapping.
    /// - Throws: ``GGUFFile/Error/fileNotFound(path:)``, ``GGUFFile/Error/invalidFile(path:reason:)``,
    ///   ``GGUFFile/Error/splitPartNotFirst(path:part:count:firstPart:)``, ``GGUFFile/Error/missingSplitPart(path:part:count:)``,
    ///   ``GGUFFile/Error/mismatchedSplitPart(path:reason:)``,
    ///   ``GGUFFile/Error/unloadable(path:key:value:reason:)``, ``LocalModel/Error/modelLoadFailed(path:reason:)``, ``LocalModel/Error/invalidOption(name:reason:)``
    ///   or ``LocalModel/Error/contextCreationFailed(reason:)``; with a draft model, the same for its
    ///   file, ``LocalModel/Error/incompatibleDraftModel(path:reason:)`` or
    ///   ``LocalModel/Error/speculationUnsupported(reason:)``; with a ``Configuration/memoryFit``,
    ///   ``LocalModel/Error/insufficientMemory(path:device:required:available:)`` before any
    ///   weight is read.
    public static func load(from url: URL, configuration: Configuration = .init()) async throws -> LocalModel {
        try configuration.validate()
        LlamaRuntime.ensureInitialized()
        let (file, resolved) = try await Task.detached {
            let file = try GGUFFile(modelAt: url)
            // Values that pass ggml's reader can still abort llama.cpp: check them first
            // (for a split model, against the tensors of all its parts).
            try file.checkLoadability()
            try configuration.validateCacheTypes(for: file)
            for adapter in configuration.weights.adapters { try checkAdapter(adapter, for: file) }   // before gigabytes are read
            var resolved = configuration
            resolved.serving.speculation = try configuration.serving.speculation.resolved(for: file)
            return (file, resolved)
        }.value
        guard let fit = configuration.memoryFit, configuration.context.length == nil || configuration.weights.gpuLayers == nil else {
            return try await load(file: file, configuration: configuration, effective: resolved, plan: nil)
        }
        var plan = try await Task.detached { try MemoryPlanner.plan(file: file, configuration: resolved, fit: fit) }.value
        while true {
            if !plan.fits {
                let tight = plan.tightestDevice
                throw Error.insufficientMemory(path: url.path, device: tight?.name ?? "Host",
                                               required: (tight?.used ?? 0) + plan.margin, available: tight?.availableMemory ?? 0)
            }
            var effective = resolved
            effective.context.length = plan.contextLength
            effective.weights.gpuLayers = plan.gpuLayers
            do {
                let model = try await load(file: file, configuration: configuration, effective: effective, plan: plan)
                // Whether the planned context really can be made: now, not at the first request.
                try await model.prepareSharedContext(failingAbove: fit.failsAboveContextLength)
                return model
            } catch let error as Error {
                switch error {
                case .contextCreationFailed(let reason), .modelLoadFailed(_, let reason):
                    guard let smaller = try MemoryPlanner.reduced(plan, file: file, configuration: resolved, fit: fit,
                                                                  reason: reason) else { throw error }
                    plan = smaller
                default:
                    throw error
                }
            }
        }
    }

    /// The memory plan for the model at `url`: what ``load(from:configuration:)`` with
    /// `configuration`'s ``Configuration/memoryFit`` (``Configuration/MemoryFit/automatic``
    /// without one) would choose, and what each device would hold. Reads the file's header and
    /// measures without allocating; a plan that does not fit says so instead of throwing.
    /// - Throws: the errors of reading and checking the file, or
    ///   ``LocalModel/Error/modelLoadFailed(path:reason:)`` when llama.cpp cannot project it.
    public static func memoryPlan(for url: URL, configuration: Configuration = .init()) async throws -> MemoryPlan {
        try configuration.validate()
        LlamaRuntime.ensureInitialized()
        return try await Task.detached {
            let file = try GGUFFile(modelAt: url)
            try file.checkLoadability()
            try configuration.validateCacheTypes(for: file)
            var resolved = configuration
            resolved.serving.speculation = try configuration.serving.speculation.resolved(for: file)
            return try MemoryPlanner.plan(file: file, configuration: resolved, fit: configuration.memoryFit ?? .automatic)
        }.value
    }

    /// Loads `file`'s weights (and a draft model's) with `effective`, on a thread of its own.
    private static func load(file: GGUFFile, configuration: Configuration, effective: Configuration,
                             plan: MemoryPlan?) async throws -> LocalModel {
        let executor = EngineExecutor(name: "LocalLLMKit.\(file.url.lastPathComponent)")
        do {
            let clock = ContinuousClock()
            let start = clock.now
            let (handle, draft, projector) = try await executor.run {
                let handle = try loadWeights(file: file, configuration: effective)
                let draft = try loadDraft(for: handle, configuration: effective)
                let projectorURL = effective.weights.projector.resolved(besides: file.url, width: Int(llama_model_n_embd_inp(handle.pointer)))
                let projector = try projectorURL.map {
                    try ProjectorHandle(url: $0, model: handle, usesGPU: !effective.computesOnCPUOnly, threads: effective.effectiveThreads)
                }
                return (handle, draft, projector)
            }
            let model = LocalModel(url: file.url, file: file, configuration: configuration, effectiveConfiguration: effective,
                                   memoryPlan: plan, handle: handle, draftHandle: draft, projector: projector,
                                   executor: executor, loadDuration: clock.now - start)
            if !effective.computesOnCPUOnly, !effective.weights.vocabularyOnly, file.generationProblem == nil {
                try await model.warmUp()
            }
            return model
        } catch {
            executor.shutDown()
            throw error
        }
    }

    /// With layers on a GPU, as llama.cpp's tools do: creates the shared context and decodes one
    /// token in it, then forgets it, so that the first request does not pay for the backend's
    /// first use (its kernels loaded, its handles made).
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)`` or
    ///   ``LocalModel/Error/decodeFailed(code:reason:)``.
    private func warmUp() throws {
        let context = try scheduler().context
        let token = llama_vocab_bos(handle.vocabulary)
        try context.decode([token >= 0 ? token : 0][...], startingAt: 0)
        context.clearMemory()
    }

    /// Creates the shared context now (it is otherwise made by the first request).
    /// - Parameter limit: test seam: a context of more tokens per sequence fails, as an allocation would.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    private func prepareSharedContext(failingAbove limit: Int?) throws {
        guard file.generationProblem == nil else { return }     // an embedding model has no shared context
        if let limit, contextLength > limit {
            throw Error.contextCreationFailed(reason: "a context of \(contextLength) tokens per sequence failed (simulated)")
        }
        _ = try scheduler()
    }

    /// Loads the draft model of `configuration`'s speculation, checked like any model and
    /// against `target`'s vocabulary; nil without one.
    private static func loadDraft(for target: ModelHandle, configuration: Configuration) throws -> ModelHandle? {
        if configuration.serving.speculation.isEnabled, let reason = Speculator.unsupportedReason(for: target) {
            throw LocalModel.Error.speculationUnsupported(reason: reason)
        }
        guard let url = configuration.serving.speculation.draftModelURL else { return nil }
        let file = try GGUFFile(modelAt: url)
        try file.checkLoadability()
        if let reason = file.generationProblem { throw LocalModel.Error.cannotGenerate(path: url.path, reason: reason) }
        var draftConfiguration = configuration
        draftConfiguration.weights.adapters = []                  // the target's fine-tune, not the draft's
        draftConfiguration.weights.controlVectors = []            // the target's steering, sized for its width
        let draft = try loadWeights(file: file, configuration: draftConfiguration)
        if let reason = Speculator.vocabularyMismatch(target: target, draft: draft) {
            throw LocalModel.Error.incompatibleDraftModel(path: url.path, reason: reason)
        }
        return draft
    }

    private static func loadWeights(file: GGUFFile, configuration: Configuration) throws -> ModelHandle {
        let url = file.url
        // Read and checked before the weights are.
        let steering = try ControlVectorSteering.read(configuration.weights.controlVectors, layers: configuration.weights.controlVectorLayers, for: file)
        let links = try RemoteDeviceLink.connect(to: configuration.weights.rpcServers)
        let (model, errors) = try configuration.withModelParameters(links: links) { parameters in
            LlamaLog.collectingErrors { () -> OpaquePointer? in
                guard file.partURLs.count > 1 else { return llama_model_load_from_file(url.path, parameters) }
                // The very parts that were checked, rather than names llama.cpp derives again.
                let paths = file.partURLs.map { strdup($0.path) }
                defer { paths.forEach { free($0) } }
                var arguments = paths.map { UnsafePointer<CChar>($0) }
                return arguments.withUnsafeMutableBufferPointer {
                    llama_model_load_from_splits($0.baseAddress, $0.count, parameters)
                }
            }
        }
        if let loss = RemoteDeviceLink.loss(among: links) {
            if let model { llama_model_free(model) }
            throw loss
        }
        guard let model else {
            throw LocalModel.Error.modelLoadFailed(path: url.path, reason: errors.summary ?? "llama.cpp could not load it")
        }
        let handle = ModelHandle(pointer: model, remoteLinks: links)
        try loadAdapters(configuration.weights.adapters, onto: handle)
        handle.steering = steering
        return handle
    }

    /// The scheduler over the model's shared context, created on first use.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package func scheduler() throws -> BatchScheduler {
        if let batchScheduler { return batchScheduler }
        let sequences = configuration.serving.parallelSequences
        // Every sequence may grow to the full context length: the unified cache has room for all.
        let context = try makeContext(contextLength: contextLength * sequences,
                                      fullSlidingWindowCache: configuration.context.usesFullSlidingWindowCache, sequences: sequences)
        let scheduler = BatchScheduler(context: context, tokenizer: tokenizer, executor: executor,
                                       queueLimit: configuration.serving.maximumQueuedRequests,
                                       defersText: effectiveConfiguration.defersTextWorkInEffect,
                                       speculator: try makeSpeculator(for: context),
                                       plansGrammarDrafts: effectiveConfiguration.serving.speculation.adaptsDraftLength)
        // On a GPU a step of several rows costs more than the planner foresees with a small model
        // (measured slower there, docs/PERFORMANCE.md "Grammar drafts"): only fixed drafts, asked for.
        scheduler.draftsFromGrammar = effectiveConfiguration.computesOnCPUOnly
            || !effectiveConfiguration.serving.speculation.adaptsDraftLength
        // On a GPU a filler row costs next to nothing against a pass (measured, docs/PERFORMANCE.md
        // "Idle sequences between generating ones"); on a CPU it depends on the model: measured.
        scheduler.gapChoice.mode = effectiveConfiguration.computesOnCPUOnly ? .measured : .always
        scheduler.gauges = loadGauges
        scheduler.otherQueued = embeddingTurns.waitingCount
        // A cache that keeps only a sliding window holds no whole prefix to write, nor room for one to read.
        if let settings = configuration.context.promptCache, context.keptWindow == 0 {
            scheduler.promptCache = try makePromptCacheStore(settings, streams: context.streamCount)
        }
        if effectiveConfiguration.computesOnCPUOnly, effectiveConfiguration.serving.speculation.preservesGreedyOutput {
            if let speculator = scheduler.speculator {
                scheduler.exactVerificationRows = context.exactBatchRows(probing: try probeTokens(),
                                                                         upTo: speculator.maximumDraft + 1)
            } else {
                scheduler.exactRowsProbe = try probeTokens()        // measured by the first grammar request
            }
        }
        batchScheduler = scheduler
        sharedContextCount += 1
        return scheduler
    }

    /// The speculator of the configuration's speculation over `context`, with the draft model's
    /// own context, or the MTP context of this model (as many sequences and cells); nil without
    /// speculation.
    /// Tokens of a fixed text for ``InferenceContext/exactBatchRows(probing:sequence:upTo:)``.
    private func probeTokens() throws -> [Int32] {
        let tokens = try tokenizer.tokenize("The quick brown fox jumps over the lazy dog, and then it sleeps in the sun.",
                                            addSpecial: false, parseSpecial: false)
        return Array((0..<4).flatMap { _ in tokens }.prefix(17))
    }

    private func makeSpeculator(for context: InferenceContext) throws -> Speculator? {
        let speculation = effectiveConfiguration.serving.speculation
        guard speculation.isEnabled else { return nil }
        var draftContext: InferenceContext?
        if let draftHandle {
            var parameters = context.parameters
            // Any prefix the draft context keeps must still be whole: no sliding window drops cells.
            parameters.swa_full = true
            draftContext = try InferenceContext(model: draftHandle, parameters: parameters)
        } else if speculation.source == .multiTokenPrediction {
            var parameters = context.parameters
            parameters.ctx_type = LLAMA_CONTEXT_TYPE_MTP
            parameters.n_rs_seq = 0
            parameters.ctx_other = context.pointer
            // One draft position per sequence and step, as llama.cpp's own MTP context.
            parameters.n_outputs_max = UInt32(context.sequenceCount)
            parameters.n_outputs_max_per_seq = 1
            draftContext = try InferenceContext(model: handle, parameters: parameters)
        }
        return try Speculator(speculation, target: context, draft: draftContext,
                              draftPath: speculation.draftModelURL?.path)
    }

    /// The speculation generation uses: the configuration's, with ``Configuration/Speculation/automatic``
    /// resolved for this model.
    public nonisolated var speculationInEffect: Configuration.Speculation {
        effectiveConfiguration.serving.speculation
    }

    /// The longest prefix of `tokens` that a new request would take from the cache now.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package func reusablePrefix(of tokens: [Token]) throws -> Int {
        try scheduler().reusablePrefix(of: tokens)
    }

    /// The KV cells one sequence of the shared context can reach (see ``Configuration/CacheLayout``).
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package func cacheCellsPerSequence() throws -> Int {
        try scheduler().context.cellsPerSequence
    }

    /// Whether no request generates, embeds or waits now.
    package var isIdle: Bool { waitingRequestCount == 0 && busySequenceCount == 0 && !embeddingTurns.isBusy }

    /// Requests waiting for a free sequence now (embedding requests waiting their turn included).
    package var waitingRequestCount: Int { (batchScheduler?.waitingCount ?? 0) + embeddingTurns.waitingCount }

    /// Embedding requests embedding now (0 or 1) and waiting their turn, and the units and tokens
    /// decoded for embeddings since the model was loaded.
    package var embeddingLoad: (running: Int, waiting: Int, units: Int, tokens: Int) {
        (embeddingTurns.isRunning ? 1 : 0, embeddingTurns.waitingCount, embeddingTurns.decodedUnits, embeddingTurns.decodedTokens)
    }

    /// Publishes the embedding turns to ``loadGauges`` (and their waiting requests to the
    /// scheduler's queue, which publishes its own numbers).
    func publishEmbeddingLoad() {
        let load = embeddingLoad
        if let batchScheduler {
            batchScheduler.otherQueued = load.waiting
        } else {
            loadGauges.update { $0.waiting = load.waiting }
        }
        loadGauges.update { values in
            values.embeddingRunning = load.running
            values.embeddingWaiting = load.waiting
            values.embeddingUnits = load.units
            values.embeddingTokens = load.tokens
        }
    }

    /// The scheduler, when generation has started.
    var existingScheduler: BatchScheduler? { batchScheduler }

    /// Sequences generating (or evaluating a prompt) now.
    package var busySequenceCount: Int { batchScheduler?.activeCount ?? 0 }

    /// Runs `request` to its end alongside the model's other requests. It counts in
    /// ``generationsInFlight`` from before it reaches the model's thread.
    ///
    /// Sampling fields the request leaves `nil` take the model's recommended values
    /// (``GGUFFile/recommendedSampling``) here, the one place every chat round and completion
    /// passes, and the scheduler then validates the filled values.
    /// - Throws: the request's validation errors, ``LocalModel/Error/busy(queuedRequests:)``,
    ///   or the decode or sampling error that ended it.
    package nonisolated func generate(_ request: GenerationRequest) async throws -> GenerationOutcome {
        var request = request
        request.plan.options.sampling = request.plan.options.sampling.filling(from: recommendedSampling)
        return try await countingGeneration { [request] in try await self.submit(request) }
    }

    /// Runs `body`, a generation request, counted in ``generationsInFlight``.
    package nonisolated func countingGeneration<T>(_ body: () async throws -> T) async rethrows -> T {
        generationsInFlight.add(1, ordering: .relaxed)
        defer { generationsInFlight.subtract(1, ordering: .relaxed) }
        return try await body()
    }

    private func submit(_ request: GenerationRequest) async throws -> GenerationOutcome {
        let scheduler = try scheduler()
        return try await withCheckedThrowingContinuation { continuation in
            do {
                try scheduler.submit(request) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The saved state of a sequence that holds a prefix of `tokens` and nothing else (see
    /// ``BatchScheduler/snapshot(matching:)``).
    package func cacheSnapshot(matching tokens: [Token]) throws -> (state: [UInt8], tokens: [Token])? {
        try scheduler().snapshot(matching: tokens)
    }

    /// More bytes than a saved sequence state of this model can have: keys and values of every
    /// layer for the whole context, as 32-bit floats, for every attention head (as if none were
    /// shared), plus room for llama.cpp's own fields. A file that declares more is not one of
    /// this model's, and is refused before its cache data is read.
    package nonisolated var maximumCacheStateBytes: Int {
        let layers = Int(llama_model_n_layer(handle.pointer))
        let heads = Int(llama_model_n_head(handle.pointer))
        let keyWidth = file.architecture.flatMap { file.metadata["\($0).attention.key_length"]?.intValue } ?? 0
        let valueWidth = file.architecture.flatMap { file.metadata["\($0).attention.value_length"]?.intValue } ?? 0
        let width = Int(llama_model_n_embd(handle.pointer))
        // Metadata is clamped: a forged header must not overflow this sum.
        func bounded(_ value: Int, _ limit: Int = 1 << 16) -> Int { min(max(value, 0), limit) }
        let perToken = bounded(layers, 1 << 12) * 4 * (max(bounded(width), bounded(heads, 1 << 12) * bounded(keyWidth))
                                                       + max(bounded(width), bounded(heads, 1 << 12) * bounded(valueWidth)))
        let (total, overflow) = perToken.multipliedReportingOverflow(by: contextLength)
        return overflow ? .max : total + (1 << 20)
    }

    /// Loads a saved sequence state into an idle sequence (see ``BatchScheduler/restore(_:tokens:)``).
    package func restoreCache(_ state: [UInt8], tokens: [Token]) throws -> Bool {
        try scheduler().restore(state, tokens: tokens)
    }

    /// A new inference context for this model.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package nonisolated func makeContext(contextLength: Int, fullSlidingWindowCache: Bool,
                                 sequences: Int = 1, threads: Int? = nil) throws -> InferenceContext {
        guard !configuration.weights.vocabularyOnly else {
            throw LocalModel.Error.contextCreationFailed(reason: "the model was loaded with vocabularyOnly, so it cannot generate")
        }
        if let reason = file.generationProblem {
            throw LocalModel.Error.cannotGenerate(path: url.path, reason: reason)
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
        let parameters = configuration.contextParameters(contextLength: contextLength, sequences: sequences,
                                                         fullSlidingWindowCache: fullSlidingWindowCache, threads: threadCount)
        return try InferenceContext(model: handle, parameters: parameters)
    }
}
