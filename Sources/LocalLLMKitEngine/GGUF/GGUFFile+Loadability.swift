extension GGUFFile {
    /// Why llama.cpp cannot load this file safely, or nil when the header holds
    /// nothing that it would abort on.
    ///
    /// ggml's reader (run by ``init(contentsOf:)``) checks the file's structure; this
    /// checks its *values*: the hyperparameters, vocabulary and tensor descriptors that
    /// llama.cpp asserts on, divides by or sizes buffers from, when loading or at the
    /// first decode, and that would otherwise abort the whole process. Each check names
    /// the llama.cpp code it guards. Architectures that LocalLLMKit does not know in
    /// detail get only the checks that hold for every architecture.
    public var loadabilityProblem: GGUFFile.Error? {
        do {
            var check = LoadabilityCheck(file: self)
            try check.run()
            return nil
        } catch let error as GGUFFile.Error {
            return error
        } catch {
            return .invalidFile(path: url.path, reason: "\(error)")
        }
    }

    /// Why this model, although it loads, cannot generate text (an encoder such as BERT, an
    /// embedding model), or nil when it can.
    public var generationProblem: String? {
        architecture.flatMap { LoadabilityCheck.encoderArchitectures[$0] }
    }

    /// Throws ``loadabilityProblem`` when there is one.
    ///
    /// ``LocalModel/load(from:configuration:)`` calls this before llama.cpp sees the
    /// file, and `llmkit info` reports it.
    /// - Throws: ``GGUFFile/Error/unloadable(path:key:value:reason:)`` naming the
    ///   metadata key (or tensor) and its value.
    public func checkLoadability() throws {
        if let problem = loadabilityProblem { throw problem }
    }
}

/// The checks behind ``GGUFFile/loadabilityProblem``, split by concern over this file
/// (hyperparameters), `+Vocabulary` and `+Tensors`.
package struct LoadabilityCheck {
    /// LLAMA_MAX_LAYERS in llama.cpp's src/llama-hparams.h.
    package static let maximumLayers = 512
    /// LLAMA_MAX_EXPERTS in src/llama-hparams.h.
    package static let maximumExperts = 1024
    /// Architectures whose every layer is plain attention plus a feed-forward block,
    /// laid out as in llama.cpp's src/models/llama.cpp: these get the stricter checks.
    package static let plainTransformers: Set<String> = [
        "llama", "gemma", "gemma2", "gemma3", "qwen2", "qwen3", "phi3", "granite",
        "olmo2", "mistral3", "smollm3", "starcoder2",
    ]

    package let file: GGUFFile
    package var architecture = ""
    package var layerCount = 0

    package init(file: GGUFFile) {
        self.file = file
    }

    /// The per-layer attention head counts, filled in by the hyperparameter checks.
    package var headCounts: [Int] = []
    package var keyValueHeadCounts: [Int] = []

    package mutating func run() throws {
        guard let architecture = file.architecture, !architecture.isEmpty else {
            throw reject("general.architecture", file.metadata["general.architecture"]?.description ?? "missing",
                         "every model must name its architecture")
        }
        self.architecture = architecture
        try checkGenerative()
        try checkLayers()
        try checkArchitecture()
        try checkExperts()
        try checkAttention()
        try checkNumbers()
        try checkSlidingWindow()
        try checkVocabulary()
        try checkTensors()
    }

    // MARK: - Helpers

    package func reject(_ key: String, _ value: String, _ reason: String) -> GGUFFile.Error {
        .unloadable(path: file.url.path, key: key, value: value, reason: reason)
    }

    /// The full key of an architecture hyperparameter, e.g. `gemma3.block_count`.
    package func key(_ suffix: String) -> String { "\(architecture).\(suffix)" }

    package func value(_ suffix: String) -> GGUFValue? { file.metadata[key(suffix)] }

    /// A hyperparameter's value as text, or `missing`.
    package func describe(_ suffix: String) -> String { value(suffix)?.description ?? "missing" }

    /// An unsigned 32-bit hyperparameter (as llama.cpp reads them), or nil when absent.
    package func unsigned(_ suffix: String) throws -> Int? {
        guard let value = value(suffix) else { return nil }
        guard let number = value.intValue, (0...Int(UInt32.max)).contains(number) else {
            throw reject(key(suffix), value.description, "must be an unsigned 32-bit integer")
        }
        return number
    }

    /// A hyperparameter that is one number for every layer or an array of one number
    /// per layer (llama.cpp's `get_key_or_arr`), or nil when absent.
    package func perLayer(_ suffix: String) throws -> [Int]? {
        guard let value = value(suffix) else { return nil }
        switch value {
        case .array(let items):
            guard items.count == layerCount else {
                throw reject(key(suffix), value.description,
                             "has \(items.count) values, but a per-layer array needs one per block (\(layerCount))")
            }
            return try items.map { item in
                guard let number = item.intValue, (0...Int(UInt32.max)).contains(number) else {
                    throw reject(key(suffix), value.description, "every value must be an unsigned 32-bit integer")
                }
                return number
            }
        case .largeArray(_, let count):
            throw reject(key(suffix), value.description,
                         "has \(count) values, but a per-layer array needs one per block (\(layerCount))")
        default:
            return try Array(repeating: unsigned(suffix) ?? 0, count: layerCount)
        }
    }

    package var isPlainTransformer: Bool { Self.plainTransformers.contains(architecture) }

    // MARK: - Hyperparameters (llama.cpp src/llama-model.cpp, load_hparams)

    /// `block_count`: GGML_ASSERT(n_layer_all > 0 && n_layer_all <= LLAMA_MAX_LAYERS);
    /// `nextn_predict_layers`: GGML_ASSERT(n_layer_nextn <= n_layer_all).
    private mutating func checkLayers() throws {
        let blocks = try unsigned("block_count")
        guard let blocks, (1...Self.maximumLayers).contains(blocks) else {
            throw reject(key("block_count"), describe("block_count"),
                         "the number of layers must be between 1 and \(Self.maximumLayers) (llama.cpp's LLAMA_MAX_LAYERS)")
        }
        layerCount = blocks
        if let nextN = try unsigned("nextn_predict_layers"), nextN > blocks {
            throw reject(key("nextn_predict_layers"), String(nextN),
                         "cannot exceed the number of layers (\(blocks))")
        }
        for suffix in ["context_length", "embedding_length"] {
            guard let number = try unsigned(suffix), number > 0 else {
                throw reject(key(suffix), describe(suffix), "must be a positive integer")
            }
        }
    }

    /// The expert-count asserts that follow `block_count` in load_hparams.
    private func checkExperts() throws {
        var experts = try unsigned("expert_count") ?? 0
        var used = try perLayer("expert_used_count")?.max() ?? 0
        let groups = try unsigned("expert_group_count") ?? 0
        let groupsUsed = try unsigned("expert_group_used_count") ?? 0
        if ["hunyuan-dense", "hunyuan_vl"].contains(architecture), experts <= 1 {
            experts = 0   // llama.cpp resets both for these
            used = 0
        }
        let usedKey = key("expert_used_count")
        guard experts <= Self.maximumExperts else {
            throw reject(key("expert_count"), String(experts),
                         "more than \(Self.maximumExperts) experts (llama.cpp's LLAMA_MAX_EXPERTS)")
        }
        guard used <= experts else {
            throw reject(usedKey, String(used), "more experts used per token than the model has (\(experts))")
        }
        if experts > 0 {
            guard used > 0 else {
                throw reject(usedKey, describe("expert_used_count"),
                             "the model has \(experts) experts, so at least one must be used per token")
            }
            guard groups < experts else {
                throw reject(key("expert_group_count"), String(groups), "must be smaller than the expert count (\(experts))")
            }
            if groups > 1 {
                guard experts % groups == 0 else {
                    throw reject(key("expert_group_count"), String(groups), "must divide the expert count (\(experts))")
                }
                guard groupsUsed > 0, groupsUsed < groups else {
                    throw reject(key("expert_group_used_count"), String(groupsUsed),
                                 "must be between 1 and the group count minus one (\(groups - 1))")
                }
            }
        } else if groups != 0 {
            throw reject(key("expert_group_count"), String(groups), "the model has no experts to group")
        }
    }
}
