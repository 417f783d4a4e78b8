extension GGUFFile {
    /// The architectures whose next-token-prediction layers llama.cpp runs as a draft head (those
    /// with a `LLM_GRAPH_TYPE_DECODER_MTP` graph in the pinned tree). Others may carry such layers
    /// (exaone4, glm4, bailingmoe2…) without a graph to run them.
    static let multiTokenPredictionArchitectures: Set<String> = [
        "mimo2", "glm4moe", "glm-dsa", "deepseek2", "deepseek32", "deepseek4", "step35", "hy_v3", "cohere2moe",
        "qwen35", "qwen35moe", "qwen3next", "bailingmoe3", "nemotron_h_moe",
    ]

    /// How many next-token-prediction (NextN) layers the file carries for multi-token prediction
    /// (``LocalModel/Configuration/Speculation/multiTokenPrediction(maximumDraft:)``): the
    /// `<architecture>.nextn_predict_layers` of an architecture that llama.cpp can run them for,
    /// when the last block's `nextn.eh_proj` tensor is really there (a trunk-only file may keep
    /// the count and drop the layers, as llama.cpp's own detection checks). 0 otherwise.
    public var multiTokenPredictionLayers: Int {
        guard let architecture, Self.multiTokenPredictionArchitectures.contains(architecture),
              let layers = metadata["\(architecture).nextn_predict_layers"]?.intValue, layers > 0,
              let blocks = metadata["\(architecture).block_count"]?.intValue, blocks > layers,
              hasTensor("blk.\(blocks - 1).nextn.eh_proj.weight")
        else { return 0 }
        // What the MTP graphs assert (an abort, not an error) beyond what loading checks.
        switch architecture {
        case "mimo2" where !hasTensor("blk.\(blocks - 1).attn_qkv.weight"):
            return 0        // its MTP block needs fused query, key and value weights
        case "glm4moe" where !hasTensor("blk.\(blocks - 1).ffn_gate_inp.weight"):
            return 0        // its MTP block is a mixture of experts
        default:
            return layers
        }
    }

    /// Whether the architecture is one of those with multi-token prediction whose trunk has
    /// recurrent layers (llama.cpp's hybrids): speculation cannot drop a rejected draft from
    /// their state here, so ``LocalModel/Configuration/Speculation/automatic`` leaves them alone.
    package var hasRecurrentLayers: Bool {
        ["qwen35", "qwen35moe", "qwen3next", "bailingmoe3", "nemotron_h_moe"].contains(architecture ?? "")
    }

    private func hasTensor(_ name: String) -> Bool {
        tensors.contains { $0.name == name }
    }
}
