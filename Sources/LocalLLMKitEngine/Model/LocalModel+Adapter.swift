import CLlama
import Foundation

extension LocalModel.Configuration {
    /// A LoRA adapter applied over the model's weights (llama.cpp's `--lora` and `--lora-scaled`):
    /// a fine-tune's low-rank deltas, loaded once with the model and applied to every request.
    public struct Adapter: Sendable, Hashable {
        /// The adapter's GGUF file (`general.type` `adapter`, `adapter.type` `lora`).
        public var url: URL
        /// How strongly it applies: the deltas are multiplied by `scale × alpha / rank`; 0 leaves
        /// the model as it is.
        public var scale: Float

        /// The adapter at `url`, at `scale`.
        public init(url: URL, scale: Float = 1) {
            self.url = url
            self.scale = scale
        }
    }
}

extension LocalModel {
    /// Checks `adapter` against the model's file before llama.cpp reads it: what llama.cpp
    /// refuses (another type, architecture, or shape) with the reason named here, and what it
    /// would accept and then compute with (a NaN alpha, a rank of 0, a lone half of a pair).
    /// - Throws: ``LocalModel/Error/invalidAdapter(path:reason:)``.
    static func checkAdapter(_ adapter: Configuration.Adapter, for model: GGUFFile) throws {
        func refuse(_ reason: String) -> Error { .invalidAdapter(path: adapter.url.path, reason: reason) }
        guard adapter.scale.isFinite else { throw refuse("its scale \(adapter.scale) is not a finite number") }
        let file: GGUFFile
        do {
            file = try GGUFFile(contentsOf: adapter.url)
        } catch {
            throw refuse("it is not a readable GGUF file: \((error as? LocalizedError)?.errorDescription ?? "\(error)")")
        }
        guard file.metadata["general.type"]?.stringValue == "adapter", file.metadata["adapter.type"]?.stringValue == "lora" else {
            throw refuse("it is not a LoRA adapter (general.type must be adapter and adapter.type lora)")
        }
        guard file.architecture == model.architecture else {
            throw refuse("it adapts \(file.architecture ?? "an unnamed architecture"), and the model is \(model.architecture ?? "unnamed")")
        }
        if let alpha = file.metadata["adapter.lora.alpha"] {
            guard let value = alpha.doubleValue, value.isFinite, value >= 0 else {
                throw refuse("its adapter.lora.alpha is \(alpha.description), not a finite number of 0 or more")
            }
        }
        let base = Dictionary(model.tensors.map { ($0.name, $0.dimensions) }, uniquingKeysWith: { first, _ in first })
        let tensors = Dictionary(file.tensors.map { ($0.name, $0.dimensions) }, uniquingKeysWith: { first, _ in first })
        var pairs = 0
        for (name, first) in tensors.sorted(by: { $0.key < $1.key }) where name.hasSuffix(".lora_a") {
            let target = String(name.dropLast(".lora_a".count))
            guard let second = tensors[target + ".lora_b"] else { throw refuse("\(name) has no \(target).lora_b") }
            guard let weights = base[target] else { throw refuse("the model has no tensor \(target) for it to adapt") }
            let (inputs, outputs) = (weights.first ?? 0, weights.count > 1 ? weights[1] : 1)
            let rank = first.count > 1 ? first[1] : 1
            guard rank >= 1, second.first ?? 0 >= 1 else { throw refuse("\(target)'s pair has rank 0") }
            pairs += 1
            // The token embeddings' pair is stored the other way round; llama.cpp checks it.
            if target == "token_embd.weight" { continue }
            guard first.first == inputs, second.first == rank, (second.count > 1 ? second[1] : 1) == outputs else {
                throw refuse("\(target)'s pair has shapes \(first) and \(second), but the model's tensor is \(weights) "
                             + "(lora_a must be [\(inputs), rank], lora_b [rank, \(outputs)])")
            }
        }
        if let lone = tensors.keys.sorted().first(where: { $0.hasSuffix(".lora_b") && tensors[String($0.dropLast(7)) + ".lora_a"] == nil }) {
            throw refuse("\(lone) has no lora_a")
        }
        guard pairs > 0 else { throw refuse("it holds no lora_a and lora_b tensors") }
    }

    /// Loads the configuration's adapters onto `handle`; ``load(from:configuration:)`` has checked
    /// each with ``checkAdapter(_:for:)`` before the weights were read.
    /// - Throws: ``LocalModel/Error/invalidAdapter(path:reason:)``.
    static func loadAdapters(_ adapters: [Configuration.Adapter], onto handle: ModelHandle) throws {
        var loaded: [(pointer: OpaquePointer, scale: Float)] = []
        for adapter in adapters {
            let (pointer, errors) = LlamaLog.collectingErrors { llama_adapter_lora_init(handle.pointer, adapter.url.path) }
            guard let pointer else {
                throw Error.invalidAdapter(path: adapter.url.path, reason: errors.summary ?? "llama.cpp could not load it")
            }
            loaded.append((pointer, adapter.scale))
        }
        handle.adapters = loaded
    }
}

extension LocalModel {
    /// Checks, without loading anything, that `adapter` can apply to the model at `url`, as
    /// ``load(from:configuration:)`` would (`llmkit info ADAPTER -m MODEL`).
    /// - Throws: ``LocalModel/Error/invalidAdapter(path:reason:)``, or the model file's errors.
    public static func checkAdapter(_ adapter: Configuration.Adapter, forModelAt url: URL) throws {
        try checkAdapter(adapter, for: GGUFFile(modelAt: url))
    }

    /// Checks, without loading the model, that `vector` can steer the model at `url`, as
    /// ``load(from:configuration:)`` would.
    /// - Throws: ``LocalModel/Error/invalidControlVector(path:reason:)``, or the model file's errors.
    public static func checkControlVector(_ vector: Configuration.ControlVector, forModelAt url: URL) throws {
        _ = try ControlVectorSteering.read([vector], layers: nil, for: GGUFFile(modelAt: url))
    }
}

extension ModelHandle {
    /// Sets the model's adapters on `context` at `scales`, one per adapter in load order
    /// (`llama_set_adapters_lora`, which takes any such list and returns 0).
    func applyAdapters(at scales: [Float], to context: OpaquePointer) {
        precondition(scales.count == adapters.count, "one scale per adapter")
        var pointers: [OpaquePointer?] = adapters.map(\.pointer)
        var values = scales
        _ = llama_set_adapters_lora(context, &pointers, pointers.count, &values)
    }
}
