import CLlama

extension LocalModel {
    /// llama.cpp's one-line description of the model, e.g. `gemma3 270M Q4_K - Medium`.
    public nonisolated var modelDescription: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = llama_model_desc(handle.pointer, &buffer, buffer.count)
        return String(decoding: buffer.prefix(Int(max(length, 0))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The size of the weights in bytes.
    public nonisolated var weightsSize: Int64 { Int64(clamping: llama_model_size(handle.pointer)) }

    /// The number of weights, as llama.cpp counts them.
    public nonisolated var parameterCount: Int64 { Int64(clamping: llama_model_n_params(handle.pointer)) }

    /// The compute backends llama.cpp registered in this process, e.g. `["CPU"]` or `["CUDA", "CPU"]`;
    /// not the RPC backend, whose devices are a model's own (``backendNames(of:)``).
    public static var backendNames: [String] {
        LlamaRuntime.ensureInitialized()
        return (0..<ggml_backend_reg_count()).compactMap { index in
            guard let registry = ggml_backend_reg_get(index), ggml_backend_reg_dev_count(registry) > 0 else { return nil }
            return ggml_backend_reg_name(registry).map { String(cString: $0) }
        }
    }

    /// The backends `model` computes on: ``backendNames``, and `RPC` when it has remote devices.
    public static func backendNames(of model: LocalModel) -> [String] {
        backendNames + (model.configuration.weights.rpcServers.isEmpty ? [] : ["RPC"])
    }

    /// The layers that run on a GPU or a remote device (``LocalModel/Configuration/Weights/rpcServers``): all of
    /// them (the repeating blocks plus the output layer) by default when there is one, none on
    /// a machine without.
    public nonisolated var gpuLayerCount: Int {
        guard LlamaRuntime.supportsGPUOffload || !handle.remoteLinks.isEmpty else { return 0 }
        let available = Int(llama_model_n_layer(handle.pointer)) + 1
        return min(effectiveConfiguration.weights.gpuLayers ?? available, available)
    }
}
