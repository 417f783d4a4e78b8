import CLlama
import CLlamaEngineBridge
import Foundation

/// Plans a model's context length and GPU layers against the memory free on this machine (see
/// ``LocalModel/Configuration/MemoryFit``), through llama.cpp's `common_fit_params` and its
/// no-allocation memory projection. Nothing is allocated and no weights are read.
package enum MemoryPlanner {
    /// The plan for `file` with `configuration` (its speculation resolved) and `fit`: kept from an
    /// earlier load when ``LocalModel/Configuration/MemoryFit/reusesPlans`` allows, else measured.
    /// - Throws: ``LocalModel/Error/modelLoadFailed(path:reason:)`` when llama.cpp cannot project
    ///   the model.
    package static func plan(file: GGUFFile, configuration: LocalModel.Configuration,
                             fit: LocalModel.Configuration.MemoryFit) throws -> LocalModel.MemoryPlan {
        let cache = MemoryPlanCache(url: fit.planCacheURL ?? MemoryPlanCache.defaultURL())
        let key = try MemoryPlanCache.key(file: file, configuration: configuration, fit: fit)
        if fit.reusesPlans,
           var kept = cache.plan(for: key, available: MemoryPlanCache.availableMemory(limit: fit.availableMemory)) {
            kept.isReused = true
            return kept
        }
        let measurer = Measurer(file: file, configuration: configuration, fit: fit)
        let probe = try measurer.project(contextLength: configuration.context.length ?? measurer.minimumContext,
                                         gpuLayers: configuration.weights.gpuLayers)
        let plan = try measurer.fit(probe: probe)
        if fit.reusesPlans, plan.fits { cache.store(plan, for: key) }
        return plan
    }

    /// Records that loading at `plan`'s size failed and returns the plan a tier smaller: half the
    /// context (not below the minimum), else a quarter fewer GPU layers; nil when nothing is left
    /// to take away. The smaller plan replaces the kept one.
    package static func reduced(_ plan: LocalModel.MemoryPlan, file: GGUFFile, configuration: LocalModel.Configuration,
                                fit: LocalModel.Configuration.MemoryFit, reason: String) throws -> LocalModel.MemoryPlan? {
        var smaller = plan
        let minimum = min(fit.minimumContextLength, plan.trainingContextLength)
        if configuration.context.length == nil, plan.contextLength > minimum {
            smaller.contextLength = max(minimum, plan.contextLength / 2 / 256 * 256)
            smaller.reasons.append("loading at \(plan.contextLength) tokens failed (\(reason)): halved to \(smaller.contextLength)")
        } else if configuration.weights.gpuLayers == nil, plan.gpuLayers > 0 {
            smaller.gpuLayers = plan.gpuLayers * 3 / 4
            smaller.reasons.append("loading with \(plan.gpuLayers) GPU layers failed (\(reason)): \(smaller.gpuLayers) now")
        } else {
            return nil
        }
        smaller.reductions += 1
        smaller.isReused = false
        if fit.reusesPlans {
            let key = try MemoryPlanCache.key(file: file, configuration: configuration, fit: fit)
            MemoryPlanCache(url: fit.planCacheURL ?? MemoryPlanCache.defaultURL()).store(smaller, for: key)
        }
        return smaller
    }
}

/// The measurements of one plan.
private struct Measurer {
    let file: GGUFFile
    let configuration: LocalModel.Configuration
    let fit: LocalModel.Configuration.MemoryFit
    let sequences: Int
    let trainingContext: Int
    /// What the host can give: the memory available to new allocations, or the fit's limit.
    let hostAvailable: Int64

    init(file: GGUFFile, configuration: LocalModel.Configuration, fit: LocalModel.Configuration.MemoryFit) {
        self.file = file
        self.configuration = configuration
        self.fit = fit
        sequences = configuration.serving.parallelSequences
        trainingContext = max(file.trainingContextLength ?? LocalModel.Configuration.defaultContextLength, 1)
        hostAvailable = min(SystemMemory.availableBytes, fit.availableMemory ?? .max)
    }

    /// The shortest context per sequence that fitting may choose.
    var minimumContext: Int { max(1, min(fit.minimumContextLength, trainingContext)) }

    /// What the model would use with `contextLength` tokens per sequence and `gpuLayers` (nil:
    /// as many as llama.cpp would offload), with each device's available memory.
    func project(contextLength: Int, gpuLayers: Int?) throws -> Projection {
        var model = configuration.modelParameters()
        model.n_gpu_layers = gpuLayers.map { Int32(clamping: $0) } ?? -1
        var context = configuration.contextParameters(contextLength: contextLength * sequences, sequences: sequences,
                                                      fullSlidingWindowCache: configuration.context.usesFullSlidingWindowCache,
                                                      threads: configuration.effectiveThreads)
        var result = llmkit_memory_projection()
        var error: llmkit_error?
        let ok = LlamaLog.collectingErrors {
            llmkit_project_memory(file.url.path, &model, &context, &result, &error)
        }.0
        guard ok else {
            throw LocalModel.Error.modelLoadFailed(path: file.url.path,
                                                   reason: "llama.cpp could not project its memory: \(Bridge.take(error) ?? "unknown")")
        }
        let devices = withUnsafeBytes(of: result.devices) { raw in
            raw.bindMemory(to: llmkit_device_use.self).prefix(Int(result.device_count)).map { use in
                let name = Self.string(use.name), isHost = name == "Host"
                let available = isHost ? hostAvailable : min(use.free, fit.availableMemory ?? .max)
                return LocalModel.MemoryPlan.Device(name: name, summary: Self.string(use.description),
                                                    availableMemory: available, totalMemory: use.total,
                                                    weights: use.weights, cache: use.cache, compute: use.compute)
            }
        }
        let reported = withUnsafeBytes(of: result.devices) { raw in
            raw.bindMemory(to: llmkit_device_use.self).prefix(Int(result.device_count)).map(\.free)
        }
        return Projection(devices: devices, reportedFree: reported, layerCount: Int(result.layer_count),
                          contextLength: contextLength)
    }

    /// Fits what the configuration leaves open, checks the result and explains it.
    func fit(probe: Projection) throws -> LocalModel.MemoryPlan {
        var contextLength = configuration.context.length ?? minimumContext
        var gpuLayers = configuration.weights.gpuLayers ?? (LlamaRuntime.supportsGPUOffload ? probe.layerCount : 0)
        var reasons: [String] = []
        if configuration.context.length == nil || (configuration.weights.gpuLayers == nil && LlamaRuntime.supportsGPUOffload) {
            (contextLength, gpuLayers) = try fitOpenValues(probe: probe)
        }
        var projection = try project(contextLength: contextLength, gpuLayers: gpuLayers)
        // llama.cpp interpolates the context; below its batch size the compute buffers shrink,
        // so check the choice and step down while it overshoots.
        var steps = 0
        while !fits(projection), configuration.context.length == nil, contextLength > minimumContext, steps < 8 {
            contextLength = max(minimumContext, (contextLength - max(256, contextLength / 8)) / 256 * 256)
            projection = try project(contextLength: contextLength, gpuLayers: gpuLayers)
            steps += 1
        }
        reasons.append(contextReason(contextLength, projection: projection))
        reasons.append(layerReason(gpuLayers, layerCount: projection.layerCount))
        let fitsNow = fits(projection)
        if !fitsNow, let tight = tightest(projection) {
            reasons.append("does not fit: \(tight.name) would hold \(mebibytes(tight.used)) and keep \(mebibytes(fit.margin)) free, "
                           + "but has \(mebibytes(tight.availableMemory))")
        }
        let cache = projection.devices.map(\.cache).reduce(0, +)
        return LocalModel.MemoryPlan(
            contextLength: contextLength, gpuLayers: gpuLayers, layerCount: projection.layerCount,
            trainingContextLength: trainingContext, sequences: sequences, devices: projection.devices,
            cacheBytesPerThousandTokens: cache * 1024 / Int64(max(contextLength * sequences, 1)), margin: fit.margin,
            fits: fitsNow, reasons: reasons, isReused: false, reductions: 0)
    }

    /// llama.cpp's fit of the open values, with margins that make each device's free memory what
    /// the plan may use.
    private func fitOpenValues(probe: Projection) throws -> (contextLength: Int, gpuLayers: Int) {
        var model = configuration.modelParameters()
        model.n_gpu_layers = configuration.weights.gpuLayers.map { Int32(clamping: $0) } ?? -1
        var context = configuration.contextParameters(
            contextLength: (configuration.context.length ?? 0) * sequences, sequences: sequences,
            fullSlidingWindowCache: configuration.context.usesFullSlidingWindowCache, threads: configuration.effectiveThreads)
        // For each of the model's devices (for a build without any: the host), the margin plus what
        // the device reports beyond what the plan may use.
        let modelDevices = probe.devices.indices.filter { !probe.devices[$0].isHost }
        let margins: [Int64] = modelDevices.isEmpty
            ? [fit.margin + max(0, (probe.reportedFree.last ?? 0) - hostAvailable)]
            : modelDevices.map { fit.margin + max(0, probe.reportedFree[$0] - probe.devices[$0].availableMemory) }
        var status: Int32 = 0
        var error: llmkit_error?
        let handle = LlamaLog.collectingErrors {
            llmkit_fit_params(file.url.path, &model, &context, margins, Int32(margins.count),
                              UInt32(clamping: minimumContext * sequences), &status, &error)
        }.0
        guard let handle else {
            throw LocalModel.Error.modelLoadFailed(path: file.url.path,
                                                   reason: "llama.cpp could not fit it: \(Bridge.take(error) ?? "unknown")")
        }
        llmkit_fit_free(handle)
        let chosenContext = configuration.context.length
            ?? min(trainingContext, max(minimumContext, Int(context.n_ctx) / sequences))
        let layers = model.n_gpu_layers < 0 ? probe.layerCount : min(Int(model.n_gpu_layers), probe.layerCount)
        return (chosenContext, LlamaRuntime.supportsGPUOffload ? layers : 0)
    }

    func fits(_ projection: Projection) -> Bool {
        projection.limitingDevices.allSatisfy { $0.used + fit.margin <= $0.availableMemory }
    }

    func tightest(_ projection: Projection) -> LocalModel.MemoryPlan.Device? {
        projection.limitingDevices.min { $0.availableMemory - $0.used < $1.availableMemory - $1.used }
    }

    private func contextReason(_ length: Int, projection: Projection) -> String {
        if configuration.context.length != nil { return "context length \(length) per sequence: given" }
        if length >= trainingContext { return "context length \(length) per sequence: the model's training length, which fits" }
        if length <= minimumContext {
            return "context length \(length) per sequence: the minimum (\(fit.minimumContextLength), at most the training length)"
        }
        let limit = tightest(projection)?.name ?? "the devices"
        return "context length \(length) per sequence: the longest that leaves \(mebibytes(fit.margin)) free on \(limit) "
            + "(training length \(trainingContext))"
    }

    private func layerReason(_ layers: Int, layerCount: Int) -> String {
        if !LlamaRuntime.supportsGPUOffload { return "GPU layers: none (this build of llama.cpp has no GPU backend)" }
        if configuration.weights.gpuLayers != nil { return "GPU layers: \(layers) of \(layerCount), given" }
        if layers >= layerCount { return "GPU layers: all \(layerCount) fit" }
        return "GPU layers: \(layers) of \(layerCount), the most that fit with \(mebibytes(fit.margin)) free on each GPU"
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// A projection's devices, with what each reported free before the plan's limits.
private struct Projection {
    var devices: [LocalModel.MemoryPlan.Device]
    var reportedFree: [Int64]
    var layerCount: Int
    var contextLength: Int

    var limitingDevices: [LocalModel.MemoryPlan.Device] { LocalModel.MemoryPlan.limiting(devices) }
}

/// "512 MiB", rounded up.
func mebibytes(_ bytes: Int64) -> String {
    "\((max(bytes, 0) + (1 << 20) - 1) >> 20) MiB"
}
