import Foundation
import LocalLLMKit
import Synchronization

/// A model id the server answers for: a model loaded for it when the server started, or a file
/// that ``LoadedModels`` loads when a request needs it (and may unload when it is idle or when
/// another model needs the memory).
final class ServedEntry: Sendable {
    let id: String
    /// When the server started serving it (OpenAI's `created`).
    let created: Int
    /// Why it cannot generate text (an embedding model), read from the file's header.
    let generationProblem: String?
    /// Whether its projector takes images, and audio.
    let mediaKinds: (images: Bool, audio: Bool)
    /// What its file says of it (Ollama's `/api/tags` and `/api/show` list it).
    let facts: ModelFacts
    private let fixed: ServedModel?
    /// The file and configuration a residency loads it from; nil for a model loaded before.
    let source: ModelServer.Source?
    private let residency: LoadedModels?
    /// What was read from the resident model last loaded for it (its chat template), while it is loaded.
    private let current = Mutex<ServedModel?>(nil)
    /// The reading in progress, shared by the requests that arrive meanwhile, and the model it reads.
    private let reading = Mutex<(task: Task<ServedModel, any Error>, model: LocalModel)?>(nil)
    /// The adapter scales `POST /lora-adapters` set, kept for the model loaded again after an unload.
    private let adapterScaleSetting = Mutex<[Float]?>(nil)

    /// An id for a model that stays loaded.
    init(id: String, model: LocalModel) throws {
        self.id = id
        fixed = try ServedModel(id: id, model: model)
        source = nil
        residency = nil
        generationProblem = model.file.generationProblem
        mediaKinds = (model.acceptsImages, model.acceptsAudio)
        facts = ModelFacts(model.file)
        created = Int(Date().timeIntervalSince1970)
    }

    /// An id for a file that `residency` loads on demand.
    init(id: String, source: ModelServer.Source, residency: LoadedModels) throws {
        self.id = id
        fixed = nil
        self.source = source
        self.residency = residency
        let file = try GGUFFile(modelAt: source.url)
        generationProblem = file.generationProblem
        facts = ModelFacts(file)
        let projector = LocalModel.projector(forModelAt: source.url, configuration: source.configuration)
        mediaKinds = (projector?.images ?? false, projector?.audio ?? false)
        created = Int(Date().timeIntervalSince1970)
    }

    /// The served model, loading it if it is not resident, with the adapter scales `POST
    /// /lora-adapters` set.
    func resolve() async throws -> ServedModel {
        let served = try await resolveModel()
        if let scales = adapterScaleSetting.withLock({ $0 }), await served.model.adapterScales != scales {
            try await served.model.setAdapterScales(scales)
        }
        return served
    }

    /// The LoRA adapters it is loaded with.
    var adapters: [LocalModel.Configuration.Adapter] {
        fixed?.model.configuration.weights.adapters ?? source?.configuration.weights.adapters ?? []
    }

    /// The scales its adapters generate with now (while it is not loaded: what it will load with).
    var adapterScales: [Float] {
        get async {
            if let scales = adapterScaleSetting.withLock({ $0 }) { return scales }
            if let loaded { return await loaded.model.adapterScales }
            return adapters.map(\.scale)
        }
    }

    /// Sets the scales of its adapters for the requests that name none, now and after a reload.
    /// - Throws: what ``LocalModel/setAdapterScales(_:)`` throws.
    func setAdapterScales(_ scales: [Float]) async throws {
        if let loaded { try await loaded.model.setAdapterScales(scales) }
        adapterScaleSetting.withLock { $0 = scales }
    }

    private func resolveModel() async throws -> ServedModel {
        if let fixed { return fixed }
        guard let source, let residency else { throw APIError.server("model \(id) has no source") }
        let model = try await residency.model(at: source.url, configuration: source.configuration)
        if let held = current.withLock({ $0 }), held.model === model { return held }
        // Loading the chat template parses (and analyses) it in a template worker, which can take
        // seconds: once for all the requests that arrive meanwhile, off Swift's shared pool.
        let task = reading.withLock { reading in
            if let pending = reading, pending.model === model { return pending.task }
            let (id, chatTemplate) = (id, source.chatTemplate)
            let task = Task { try await BlockingWorkPool.shared.run { try ServedModel(id: id, model: model, chatTemplate: chatTemplate) } }
            reading = (task, model)
            return task
        }
        let served = try await task.value
        current.withLock { $0 = served }
        return served
    }

    /// The served model while it is loaded, without loading it.
    var loaded: ServedModel? { fixed ?? current.withLock { $0 } }

    /// Forgets what was read from `model` once the residency has unloaded it, so that its memory can go.
    func forget(_ model: LocalModel) {
        current.withLock { held in
            if held?.model === model { held = nil }
        }
        reading.withLock { pending in
            if pending?.model === model { pending = nil }
        }
    }

    /// Refuses a completion for a model that cannot generate text, before it is loaded.
    func checkGenerates() throws(APIError) {
        if let generationProblem { throw .cannotGenerate(model: id, reason: generationProblem) }
    }

    /// What it does, as Ollama lists it: `completion` or `embedding`, then `vision` and `audio`
    /// when its projector takes them.
    var capabilities: [String] {
        [generationProblem == nil ? "completion" : "embedding"] + (mediaKinds.images ? ["vision"] : [])
            + (mediaKinds.audio ? ["audio"] : [])
    }

    /// OpenAI's model object, with the model's ``capabilities``.
    var json: OrderedJSON {
        .object([("id", .string(id)), ("object", .string("model")), ("created", .integer(created)),
                 ("owned_by", .string("llmkit")), ("capabilities", .array(capabilities.map(OrderedJSON.string)))])
    }
}
