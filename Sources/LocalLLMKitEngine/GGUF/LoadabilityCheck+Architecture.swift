/// Whether the architecture can generate text through LocalLLMKit's decode loop at all,
/// and the asserts that single architectures add to llama.cpp's `load_arch_hparams`
/// (src/models/<architecture>.cpp).
extension LoadabilityCheck {
    /// Architectures that LocalLLMKit's plain `llama_decode` loop cannot generate text
    /// with: llama.cpp refuses them, or asserts once it tries (read from llama-graph.cpp,
    /// llama-context.cpp and src/models; measured for gemma-embedding and clip).
    package static let nonGenerativeArchitectures: [String: String] = [
        "t5": "an encoder-decoder model: llama_decode asserts that llama_encode ran first",
        "t5encoder": "an encoder-only model: it has no decoder to generate text with",
        "eagle3": "a speculative-decoding draft model: it runs only beside its target model's encoder output",
        "dflash": "a speculative-decoding draft model: it runs only beside its target model's encoder output",
        "gemma-embedding": "an embedding model: its attention is not causal, and llama_decode asserts on prompts longer than one micro-batch",
        "dream": "a diffusion model: its attention is not causal, and llama_decode asserts on prompts longer than one micro-batch",
        "llada": "a diffusion model: its attention is not causal, and llama_decode asserts on prompts longer than one micro-batch",
        "llada-moe": "a diffusion model: its attention is not causal, and llama_decode asserts on prompts longer than one micro-batch",
        "rnd1": "a diffusion model: its attention is not causal, and llama_decode asserts on prompts longer than one micro-batch",
        "clip": "a vision projector (mmproj) file, not a language model",
        "wavtokenizer-dec": "an audio decoder, not a language model",
    ]

    /// Encoder architectures, whose attention is not causal by design: they load, and embed
    /// (their contexts put every input in one micro-batch), but cannot generate.
    package static let encoderArchitectures: [String: String] = [
        "bert": "a BERT encoder (an embedding model): its attention is not causal and it has no output layer to predict tokens with",
    ]

    /// Refuses architectures that cannot generate text, before any hyperparameter check.
    package func checkGenerative() throws {
        if let reason = Self.nonGenerativeArchitectures[architecture] {
            throw reject("general.architecture", "\"\(architecture)\"", reason)
        }
    }

    /// The asserts of single architectures' `load_arch_hparams`, and the causal flag.
    package func checkArchitecture() throws {
        // LocalLLMKit's micro-batch is smaller than its batch; llama_decode asserts
        // `causal_attn || n_ubatch >= n_tokens` (llama-context.cpp) on longer prompts.
        if case .bool(false)? = value("attention.causal"), Self.encoderArchitectures[architecture] == nil {
            throw reject(key("attention.causal"), "false",
                         "non-causal (embedding) models cannot generate text; llama.cpp asserts on prompts longer than one micro-batch")
        }
        switch architecture {
        case "nanbeige": try checkLoops()
        case "hrm_text": try checkHierarchicalCycles()
        case "minimax-m3":
            try requirePositive("attention.indexer.block_size", "llama.cpp divides by the indexer block size")
        case "glm5-next": try checkKeyPool()
        case "bailingmoe3": try checkGate()
        case "hy_v4":
            for suffix in ["attention.key_length_mla", "attention.value_length_mla"] {
                guard let size = try unsigned(suffix), size > 0 else {
                    throw reject(key(suffix), describe(suffix), "hy_v4 uses multi-head latent attention, which needs a positive head size")
                }
            }
        case "deepseek4":
            // GGML_ASSERT(n_compress_ratios <= LLAMA_MAX_LAYERS)
            let count: Int
            switch value("attention.compress_ratios") {
            case .array(let items)?: count = items.count
            case .largeArray(_, let size)?: count = size
            default: count = 0
            }
            if count > Self.maximumLayers {
                throw reject(key("attention.compress_ratios"), "\(count) values",
                             "more than llama.cpp's \(Self.maximumLayers) layers (LLAMA_MAX_LAYERS)")
            }
        default: break
        }
    }

    /// A hyperparameter that llama.cpp asserts (or divides by) as positive, when present.
    private func requirePositive(_ suffix: String, _ reason: String) throws {
        if let number = try unsigned(suffix), number == 0 {
            throw reject(key(suffix), "0", reason)
        }
    }

    /// nanbeige: GGML_ASSERT(n_loops >= 1) and GGML_ASSERT(n_layer × n_loops <= LLAMA_MAX_LAYERS).
    private func checkLoops() throws {
        guard let loops = try unsigned("num_loops") else { return }
        let total = layerCount.multipliedReportingOverflow(by: loops)
        guard loops >= 1, !total.overflow, total.partialValue <= Self.maximumLayers else {
            throw reject(key("num_loops"), String(loops),
                         "must be at least 1, and the \(layerCount) layers looped that often must stay within \(Self.maximumLayers) (LLAMA_MAX_LAYERS)")
        }
    }

    /// hrm_text: every count positive and block_count = layers_per_stack × h_cycles × (l_cycles + 1).
    private func checkHierarchicalCycles() throws {
        var counts: [Int] = []
        for suffix in ["hrm.layers_per_stack", "hrm.h_cycles", "hrm.l_cycles"] {
            guard let count = try unsigned(suffix) else { return }   // missing: llama.cpp throws
            guard count > 0 else { throw reject(key(suffix), "0", "llama.cpp asserts that it is positive") }
            counts.append(count)
        }
        let slots = counts[0].multipliedReportingOverflow(by: counts[1])
        let total = slots.partialValue.multipliedReportingOverflow(by: counts[2] + 1)
        guard !slots.overflow, !total.overflow, total.partialValue == layerCount else {
            throw reject(key("block_count"), String(layerCount),
                         "must equal layers_per_stack × h_cycles × (l_cycles + 1) = \(counts[0]) × \(counts[1]) × \(counts[2] + 1)")
        }
    }

    /// glm5-next: GGML_ASSERT(kpool > 1 && top_k % kpool == 0) and hyper_connection.count == 4.
    private func checkKeyPool() throws {
        if let pool = try unsigned("attention.indexer.kpool") {
            let topK = try unsigned("attention.indexer.top_k") ?? 0
            guard pool > 1, topK % pool == 0 else {
                throw reject(key("attention.indexer.kpool"), String(pool),
                             "must be above 1 and divide the indexer's top_k (\(topK))")
            }
        }
        if let count = try unsigned("hyper_connection.count"), count != 4 {
            throw reject(key("hyper_connection.count"), String(count), "llama.cpp supports only 4 hyper-connections")
        }
    }

    /// bailingmoe3: GGML_ASSERT(kda_safe_gate) and GGML_ASSERT(kda_gate_lower_bound < 0).
    private func checkGate() throws {
        if case .bool(false)? = value("kda.safe_gate") {
            throw reject(key("kda.safe_gate"), "false", "llama.cpp supports only the safe gate")
        }
        if let bound = value("kda.gate_lower_bound"), !((bound.doubleValue ?? 0) < 0) {
            throw reject(key("kda.gate_lower_bound"), bound.description, "must be negative")
        }
    }
}
