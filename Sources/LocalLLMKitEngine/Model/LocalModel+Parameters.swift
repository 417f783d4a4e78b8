import CLlama

extension LocalModel.Configuration {
    /// llama.cpp's model parameters for this configuration (the speculation in it resolved).
    package func modelParameters() -> llama_model_params {
        var parameters = llama_model_default_params()
        if !weights.usesMemoryMap { parameters.load_mode = LLAMA_LOAD_MODE_NONE }
        parameters.vocab_only = weights.vocabularyOnly
        if let gpuLayers = weights.gpuLayers {
            parameters.n_gpu_layers = Int32(clamping: gpuLayers)
        } else {
            parameters.n_gpu_layers = LlamaRuntime.supportsGPUOffload || !weights.rpcServers.isEmpty ? -1 : 0
        }
        parameters.use_extra_bufts = repacksWeightsInEffect
        // The next-token-prediction layers are left out of memory unless multi-token prediction uses them.
        parameters.load_mtp = serving.speculation.source == .multiTokenPrediction
        return parameters
    }

    /// llama.cpp's context parameters for a context of `contextLength` cells in all, holding
    /// `sequences` sequences, in this configuration's cache layout and batch sizes.
    package func contextParameters(contextLength: Int, sequences: Int, fullSlidingWindowCache: Bool,
                                   threads: Int) -> llama_context_params {
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(clamping: contextLength)
        parameters.n_batch = UInt32(clamping: context.batchSize)
        parameters.n_ubatch = UInt32(clamping: min(context.microBatchSize, context.batchSize))
        parameters.n_seq_max = UInt32(clamping: sequences)
        parameters.kv_unified = cacheLayoutInEffect == .unified
        parameters.n_threads = Int32(clamping: threads)
        parameters.n_threads_batch = Int32(clamping: threads)
        parameters.no_perf = false
        parameters.swa_full = fullSlidingWindowCache
        parameters.type_k = context.keyCacheType.ggmlType
        parameters.type_v = context.valueCacheType.ggmlType
        parameters.flash_attn_type = context.flashAttention.llamaType
        return parameters
    }
}
