import Foundation

/// Hyperparameter and architecture variants of ``CorruptGGUF``.
extension CorruptGGUF {
    package static let hyperparameters: [CorruptGGUF] = [
        .init("block-count-zero", .tinyLlama, culprit: "llama.block_count", before: "\(assertion)(n_layer_all > 0 && n_layer_all <= LLAMA_MAX_LAYERS)") {
            $0.set("llama.block_count", .uint32(0))
        },
        .init("block-count-above-limit", .tinyGemma, culprit: "gemma3.block_count", before: "\(assertion)(n_layer_all > 0 && n_layer_all <= LLAMA_MAX_LAYERS)") {
            $0.set("gemma3.block_count", .uint32(513))
        },
        .init("nextn-layers-above-block-count", .tinyLlama, culprit: "llama.nextn_predict_layers", before: "\(assertion)(n_layer_nextn <= n_layer_all)") {
            $0.set("llama.nextn_predict_layers", .uint32(5))
        },
        .init("expert-count-above-limit", .tinyLlama, culprit: "llama.expert_count", before: "\(assertion)(n_expert <= LLAMA_MAX_EXPERTS)") {
            $0.set("llama.expert_count", .uint32(2000))
            $0.set("llama.expert_used_count", .uint32(2))
        },
        .init("experts-used-above-experts", .tinyGemma, culprit: "gemma3.expert_used_count", before: "\(assertion)(n_expert_used_max <= n_expert)") {
            $0.set("gemma3.expert_count", .uint32(2))
            $0.set("gemma3.expert_used_count", .uint32(4))
        },
        .init("experts-used-without-experts", .tinyLlama, culprit: "llama.expert_used_count", before: "\(assertion)(n_expert_used_max <= n_expert)") {
            $0.set("llama.expert_used_count", .uint32(2))
        },
        .init("experts-without-used", .tinyGemma, culprit: "gemma3.expert_used_count", before: "\(assertion)(n_expert_used_max > 0)") {
            $0.set("gemma3.expert_count", .uint32(4))
        },
        .init("expert-groups-without-experts", .tinyLlama, culprit: "llama.expert_group_count", before: "\(assertion)(n_expert_groups == 0)") {
            $0.set("llama.expert_group_count", .uint32(2))
        },
        .init("rms-epsilon-nan", .tinyLlama, culprit: "llama.attention.layer_norm_rms_epsilon", before: "\(assertion)(eps >= 0.0f) at the first decode") {
            $0.set("llama.attention.layer_norm_rms_epsilon", .float32(.nan))
        },
        .init("rms-epsilon-negative", .tinyGemma, culprit: "gemma3.attention.layer_norm_rms_epsilon", before: "\(assertion)(eps >= 0.0f) at the first decode") {
            $0.set("gemma3.attention.layer_norm_rms_epsilon", .float32(-1e-5))
        },
        .init("rms-epsilon-zero", .tinyLlama, culprit: "llama.attention.layer_norm_rms_epsilon", before: "loaded and ran (a zero vector then normalizes to NaN)") {
            $0.set("llama.attention.layer_norm_rms_epsilon", .float32(0))
        },
        .init("rope-scaling-type-unknown", .tinyLlama, culprit: "llama.rope.scaling.type", before: "\(assertion)(rope_scaling_type_train != LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED)") {
            $0.set("llama.rope.scaling.type", .string("bogus"))
        },
        .init("kv-heads-not-dividing-heads", .tinyLlama, culprit: "llama.attention.head_count_kv", before: "\(assertion)(ggml_can_mul_mat(k, q)) at the first decode",
              shape: shape(.tinyLlama) { $0.keyValueHeads = 3 }),
        .init("kv-heads-above-heads", .tinyGemma, culprit: "gemma3.attention.head_count_kv", before: "\(assertion)(ggml_can_mul_mat(k, q)) at the first decode",
              shape: shape(.tinyGemma) { $0.heads = 2; $0.keyValueHeads = 4; $0.headSize = 16 }),
        .init("kv-heads-zero-in-one-layer", .tinyLlama, culprit: "llama.attention.head_count_kv", before: "\(assertion)(a->ne[0] == b->ne[0]) at the first decode") {
            $0.set("llama.attention.head_count_kv", .uint32s([2, 0]))
        },
        .init("kv-heads-vary-by-layer", .tinyGemma, culprit: "gemma3.attention.head_count_kv", before: "\(assertion)(a->ne[0] == b->ne[0]) at the first decode") {
            $0.set("gemma3.attention.head_count_kv", .uint32s([2, 1]))
        },
        .init("head-count-zero-at-27b-depth", .tinyGemma, culprit: "gemma3.attention.head_count", before: "SIGFPE: gemma3 divides n_embd by n_head for 62-layer models",
              shape: shape(.tinyGemma) { $0.layers = 62; $0.headSize = 16 }) {
            $0.set("gemma3.attention.head_count", .uint32(0))
        },
        .init("rope-dimensions-odd", .tinyGemma, culprit: "gemma3.rope.dimension_count", before: "\(assertion)(n_dims % 2 == 0) at the first decode") {
            $0.set("gemma3.rope.dimension_count", .uint32(15))
        },
        .init("rope-dimensions-above-head-size", .tinyGemma, culprit: "gemma3.rope.dimension_count", before: "\(assertion)(n_dims <= ne0) at the first decode") {
            $0.set("gemma3.rope.dimension_count", .uint32(64))
        },
        .init("sliding-window-pattern-one", .tinyGemma, culprit: "gemma3.attention.sliding_window_pattern", before: "\(assertion)(hparams.is_swa_any()) creating the context") {
            $0.set("gemma3.attention.sliding_window_pattern", .uint32(1))
        },
        .init("sliding-window-pattern-all-false", .tinyGemma, culprit: "gemma3.attention.sliding_window_pattern", before: "\(assertion)(hparams.is_swa_any()) creating the context") {
            $0.set("gemma3.attention.sliding_window_pattern", .bools([false, false]))
        },
        .init("feed-forward-length-zero", .tinyLlama, culprit: "llama.feed_forward_length", before: "\(assertion)(!ggml_is_transposed(a)) at the first decode",
              shape: shape(.tinyLlama) { $0.feedForward = 0 }),
        .init("experts-used-per-layer-without-experts", .tinyLlama, culprit: "llama.expert_used_count", before: "\(assertion)(n_expert_used_max <= n_expert)") {
            $0.set("llama.expert_used_count", .uint32s([1, 1]))
        },
        .init("sliding-window-pattern-shorter-than-layers", .tinyGemma, culprit: "gemma3.attention.sliding_window_pattern", before: "\(assertion)(hparams.is_swa_any()) creating the context") {
            $0.set("gemma3.attention.sliding_window_pattern", .bools([false]))
        },
        .init("per-layer-array-too-short", .tinyLlama, culprit: "llama.attention.head_count", before: "failed cleanly (llama.cpp throws), but info called it fine") {
            $0.set("llama.attention.head_count", .uint32s([4]))
        },
        .init("context-length-zero", .tinyLlama, culprit: "llama.context_length", before: "run said the prompt does not fit in 0 tokens; info called it fine") {
            $0.set("llama.context_length", .uint32(0))
        },
    ]

    /// Architectures that cannot generate, and the asserts of single architectures'
    /// `load_arch_hparams` (a tiny llama renamed: those asserts run before any tensor is read).
    package static let architectures: [CorruptGGUF] = [
        .init("attention-not-causal", .tinyLlama, culprit: "llama.attention.causal",
              before: "\(assertion)(causal_attn || n_ubatch >= n_tokens_all) once a prompt is longer than 512 tokens") {
            $0.set("llama.context_length", .uint32(2048))
            $0.set("llama.attention.causal", .bool(false))
        },
        .init("embedding-architecture", .tinyGemma, culprit: "general.architecture", before: "\(assertion)(buffer) at the first decode") {
            $0.renameArchitecture(to: "gemma-embedding")
        },
        .init("vision-projector", .tinyLlama, culprit: "general.architecture", before: "failed cleanly (CLIP cannot be used as main model), but info called it fine") {
            $0.renameArchitecture(to: "clip")
        },
        .init("nanbeige-loops-zero", .tinyLlama, culprit: "nanbeige.num_loops", before: "\(assertion)(n_loops_u >= 1)") {
            $0.renameArchitecture(to: "nanbeige")
            $0.set("nanbeige.num_loops", .uint32(0))
        },
        .init("nanbeige-loops-above-layer-limit", .tinyLlama, culprit: "nanbeige.num_loops", before: "\(assertion)(n_layer_phys * n_loops_u <= LLAMA_MAX_LAYERS)") {
            $0.renameArchitecture(to: "nanbeige")
            $0.set("nanbeige.num_loops", .uint32(300))
        },
        .init("hrm-cycles-zero", .tinyLlama, culprit: "hrm_text.hrm.h_cycles", before: "\(assertion)(hparams.n_hrm_h_cycles > 0)") {
            $0.renameArchitecture(to: "hrm_text")
            $0.set("hrm_text.hrm.layers_per_stack", .uint32(1))
            $0.set("hrm_text.hrm.h_cycles", .uint32(0))
            $0.set("hrm_text.hrm.l_cycles", .uint32(1))
        },
        .init("hrm-block-count-not-slot-count", .tinyLlama, culprit: "hrm_text.block_count", before: "\(assertion)(hparams.n_layer() == n_slot)") {
            $0.renameArchitecture(to: "hrm_text")
            $0.set("hrm_text.hrm.layers_per_stack", .uint32(2))
            $0.set("hrm_text.hrm.h_cycles", .uint32(1))
            $0.set("hrm_text.hrm.l_cycles", .uint32(1))
        },
        .init("minimax-indexer-block-size-zero", .tinyLlama, culprit: "minimax-m3.attention.indexer.block_size",
              before: "\(assertion)(hparams.indexer_block_size > 0)") {
            $0.renameArchitecture(to: "minimax-m3")
            let values = [("expert_feed_forward_length", 128), ("expert_shared_count", 0), ("expert_gating_func", 1),
                          ("attention.indexer.head_count", 2), ("attention.indexer.key_length", 16), ("attention.indexer.top_k", 4),
                          ("attention.indexer.block_size", 0), ("attention.indexer.local_blocks", 1)]
            for (key, value) in values { $0.set("minimax-m3." + key, .uint32(UInt32(value))) }
        },
    ]
}
