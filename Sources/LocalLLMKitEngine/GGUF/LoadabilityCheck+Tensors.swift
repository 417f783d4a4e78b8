import CLlama

/// Tensor descriptors against the hyperparameters. ggml's reader has already checked
/// each descriptor's own shape, type id, dimension count, offset and alignment.
extension LoadabilityCheck {
    /// Architectures that size their query projection as `head size × heads`
    /// (others, such as qwen2, use the embedding length).
    package static let headSizedQueries: Set<String> = [
        "llama", "gemma", "gemma2", "gemma3", "qwen3", "granite", "mistral3", "smollm3",
    ]

    /// ggml types with no CPU matrix-product kernel that are not integers: q8_1 and
    /// q8_K only hold quantized activations, f64 only exported data.
    package static let activationOnlyTypes = Set([GGML_TYPE_Q8_1, GGML_TYPE_Q8_K, GGML_TYPE_F64].map(\.rawValue))

    package func checkTensors() throws {
        var layersWithTensors = Set<Int>()
        for tensor in file.tensors {
            if let layer = tensor.layer {
                guard layer < layerCount else {
                    throw reject("tensor \(tensor.name)", "layer \(layer)", "the model has only \(layerCount) blocks")
                }
                layersWithTensors.insert(layer)
            }
            try checkStorage(of: tensor)
        }
        guard isPlainTransformer else { return }
        if let layer = (0..<layerCount).first(where: { !layersWithTensors.contains($0) }) {
            throw reject(key("block_count"), String(layerCount), "the file has no tensors for layer \(layer)")
        }
        try checkShapes()
    }

    /// Shapes and storage types that ggml's kernels cannot compute with: they abort,
    /// or (matrix products without a kernel) read through a null function pointer.
    private func checkStorage(of tensor: GGUFFile.Tensor) throws {
        let name = "tensor \(tensor.name)"
        // ggml's reader accepts an empty dimension; ggml's operations assert on it.
        if tensor.dimensions.contains(where: { $0 < 1 }) {
            throw reject(name, "shape \(tensor.dimensions)", "a weight cannot have an empty dimension")
        }
        // ggml's CPU binary operations (the norm and bias multiplications and
        // additions) abort unless the vector is f32 like the activations.
        if tensor.dimensions.count == 1, !tensor.isFloat32, !tensor.isInteger {
            throw reject(name, "type \(tensor.typeName)",
                         "a one-dimensional weight (norm or bias) must be f32; ggml's CPU backend aborts on \(tensor.typeName)")
        }
        // Matrices are multiplied (or looked up by row): ggml-cpu.c has no vec_dot for
        // these types, so the product segfaults or aborts.
        if tensor.dimensions.count > 1, Self.activationOnlyTypes.contains(tensor.typeID) {
            throw reject(name, "type \(tensor.typeName)",
                         "ggml has no matrix product for \(tensor.typeName) weights (it is an activation or export format)")
        }
        // Plain transformers use no integer tables: every tensor there is a weight.
        if isPlainTransformer, tensor.isInteger {
            throw reject(name, "type \(tensor.typeName)",
                         "\(architecture) weights must be floating-point or quantized; ggml cannot compute with \(tensor.typeName) weights")
        }
    }

    /// Tensor shapes that follow from the hyperparameters, as llama.cpp's
    /// `create_tensor` will demand them for a plain transformer.
    private func checkShapes() throws {
        let embedding = (try? unsigned("embedding_length")) ?? 0
        let vocabularySize = file.vocabulary.tokenCount ?? 0
        let byName = Dictionary(file.tensors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in ["token_embd.weight", "output.weight"] {
            try expect(name, in: byName, [embedding, vocabularySize], "[embedding_length, vocabulary size]",
                       required: name == "token_embd.weight")
        }
        // Sliding-window layers may have their own head sizes; leave those to llama.cpp.
        guard value("attention.key_length_swa") == nil, value("attention.value_length_swa") == nil else { return }
        // load_arch_tensors sizes every layer from layer 0's head counts (LLAMA_LOAD_LOCALS).
        let (keySize, valueSize) = headSizes
        let heads = headCounts.first ?? 0, kvHeads = keyValueHeadCounts.first ?? 0
        for layer in 0..<layerCount {
            try expect("blk.\(layer).attn_k.weight", in: byName, [embedding, keySize * kvHeads],
                       "[embedding_length, key_length × head_count_kv]")
            try expect("blk.\(layer).attn_v.weight", in: byName, [embedding, valueSize * kvHeads],
                       "[embedding_length, value_length × head_count_kv]")
            if Self.headSizedQueries.contains(architecture) {
                try expect("blk.\(layer).attn_q.weight", in: byName, [embedding, keySize * heads],
                           "[embedding_length, key_length × head_count]")
            }
        }
    }

    private func expect(_ name: String, in tensors: [String: GGUFFile.Tensor], _ shape: [Int], _ formula: String,
                        required: Bool = false) throws {
        guard let tensor = tensors[name] else {
            if required { throw reject("tensor \(name)", "missing", "\(architecture) models need it") }
            return
        }
        guard tensor.dimensions == shape.map(Int64.init) else {
            throw reject("tensor \(tensor.name)", "shape \(tensor.dimensions)",
                         "the header's hyperparameters make it \(shape) \(formula)")
        }
    }
}
