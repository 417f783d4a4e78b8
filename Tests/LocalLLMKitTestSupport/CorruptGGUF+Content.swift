import Foundation

/// Vocabulary, tensor and real-model variants of ``CorruptGGUF``.
extension CorruptGGUF {
    package static let vocabulary: [CorruptGGUF] = [
        .init("duplicate-token", .tinyLlama, culprit: "tokenizer.ggml.tokens", before: "\(assertion)(id_to_token.size() == token_to_id.size())") {
            $0.set("tokenizer.ggml.tokens", .strings(tinyTokens { $0[299] = $0[298] }))
        },
        .init("empty-token-collides", .tinyGemma, culprit: "tokenizer.ggml.tokens", before: "\(assertion)(id_to_token.size() == token_to_id.size())") {
            // llama.cpp renames an empty token i to "[EMPTY_i]", which another token already is.
            $0.set("tokenizer.ggml.tokens", .strings(tinyTokens { $0[298] = ""; $0[299] = "[EMPTY_298]" }))
        },
        .init("byte-token-missing", .tinyLlama, culprit: "tokenizer.ggml.tokens", before: "aborted: std::out_of_range thrown through llama_tokenize for text with an \"h\"") {
            $0.set("tokenizer.ggml.tokens", .strings(tinyTokens { $0[3 + 0x68] = "no-h" }))
        },
        .init("vocabulary-empty", .tinyLlama, culprit: "tokenizer.ggml.tokens", before: "\(assertion)(special_bos_id != LLAMA_TOKEN_NULL) tokenizing") {
            $0.set("tokenizer.ggml.tokens", .strings([]))
            $0.set("tokenizer.ggml.scores", .float32s([]))
            $0.set("tokenizer.ggml.token_type", .int32s([]))
            $0.replaceTensor("token_embd.weight", dimensions: [64, 0])
            $0.replaceTensor("output.weight", dimensions: [64, 0])
        },
        .init("bos-token-outside-vocabulary", .tinyLlama, culprit: "tokenizer.ggml.bos_token_id", before: "loaded and ran (llama.cpp silently used token 1 instead)") {
            $0.set("tokenizer.ggml.bos_token_id", .uint32(5000))
        },
        .init("eos-token-outside-vocabulary", .tinyGemma, culprit: "tokenizer.ggml.eos_token_id", before: "loaded and ran (llama.cpp silently used token 2 instead)") {
            $0.set("tokenizer.ggml.eos_token_id", .uint32(.max))
        },
        .init("charsmap-leads-outside-its-array", .tinyLlama, culprit: "tokenizer.ggml.precompiled_charsmap",
              before: "aborted: std::runtime_error (Index out of array bounds in XCDA array) thrown through llama_tokenize for \"hi\"") {
            // 16 nodes: the newline tried at load stays inside, "h" (0x68) leads outside.
            $0.set("tokenizer.ggml.model", .string("t5"))
            $0.set("tokenizer.ggml.precompiled_charsmap", .charsmap(nodes: Array(repeating: 0, count: 16)))
        },
        .init("token-types-too-short", .tinyLlama, culprit: "tokenizer.ggml.token_type", before: "failed cleanly (llama.cpp throws), but info called it fine") {
            $0.set("tokenizer.ggml.token_type", .int32s([2, 3, 3]))
        },
    ]

    package static let tensors: [CorruptGGUF] = [
        .init("norm-weight-quantized", .tinyLlama, culprit: "tensor blk.0.attn_norm.weight", before: "aborted: binary_op: unsupported types (GGML_ABORT) at the first decode") {
            $0.replaceTensor("blk.0.attn_norm.weight", type: 8)
        },
        .init("norm-weight-f16", .tinyGemma, culprit: "tensor output_norm.weight", before: "aborted: binary_op: unsupported types (GGML_ABORT) at the first decode") {
            $0.replaceTensor("output_norm.weight", type: 1)
        },
        .init("block-count-beyond-tensors", .tinyLlama, culprit: "llama.block_count", before: "failed cleanly (llama.cpp throws), but info called it fine") {
            $0.set("llama.block_count", .uint32(3))
        },
        .init("norm-weight-i32", .tinyLlama, culprit: "tensor blk.0.attn_norm.weight", before: "aborted: binary_op: unsupported types (GGML_ABORT) at the first decode") {
            $0.replaceTensor("blk.0.attn_norm.weight", type: 26)
        },
        .init("matrix-weight-i32", .tinyLlama, culprit: "tensor blk.0.attn_q.weight", before: "SIGSEGV: no i32 matrix product at the first decode") {
            $0.replaceTensor("blk.0.attn_q.weight", type: 26)
        },
        .init("matrix-weight-f64", .tinyLlama, culprit: "tensor blk.0.attn_q.weight", before: "SIGSEGV: no f64 matrix product at the first decode") {
            $0.replaceTensor("blk.0.attn_q.weight", type: 28)
        },
        .init("matrix-weight-q8_1", .tinyLlama, culprit: "tensor blk.0.attn_q.weight", before: "SIGSEGV: no q8_1 matrix product at the first decode") {
            $0.replaceTensor("blk.0.attn_q.weight", type: 9)
        },
        .init("token-embedding-i32", .tinyLlama, culprit: "tensor token_embd.weight", before: "\(assertion)(*cur_backend_id != -1) at the first decode") {
            $0.replaceTensor("token_embd.weight", type: 26)
        },
        .init("token-embedding-f64", .tinyLlama, culprit: "tensor token_embd.weight", before: "aborted: fatal error in get_rows (GGML_ABORT) at the first decode") {
            $0.replaceTensor("token_embd.weight", type: 28)
        },
        .init("output-weight-i8", .tinyLlama, culprit: "tensor output.weight", before: "hung: still running when killed after 120 s") {
            $0.replaceTensor("output.weight", type: 24)
        },
        .init("tensor-type-out-of-range", .tinyLlama, culprit: "invalid ggml type", before: "refused by ggml's reader") {
            $0.tensors[0].type = 99
        },
        .init("tensor-with-five-dimensions", .tinyLlama, culprit: "invalid number of dimensions", before: "refused by ggml's reader") {
            $0.tensors[1].dimensions = [64, 1, 1, 1, 1]
        },
        .init("alignment-not-power-of-two", .tinyLlama, culprit: "alignment", before: "refused by ggml's reader") {
            $0.set("general.alignment", .uint32(48))
        },
    ]

    package static let realModel: [CorruptGGUF] = [
        .init("real-block-count-zero", .realModel, culprit: "gemma3.block_count", before: "\(assertion)(n_layer_all > 0 && n_layer_all <= LLAMA_MAX_LAYERS)",
              patch: ["gemma3.block_count": .uint32(0)]),
        .init("real-rms-epsilon-nan", .realModel, culprit: "gemma3.attention.layer_norm_rms_epsilon", before: "\(assertion)(eps >= 0.0f) at the first decode",
              patch: ["gemma3.attention.layer_norm_rms_epsilon": .float32(.nan)]),
        .init("real-rms-epsilon-negative", .realModel, culprit: "gemma3.attention.layer_norm_rms_epsilon", before: "\(assertion)(eps >= 0.0f) at the first decode",
              patch: ["gemma3.attention.layer_norm_rms_epsilon": .float32(-1)]),
        .init("real-head-count-zero-at-27b-depth", .realModel, culprit: "gemma3.attention.head_count", before: "SIGFPE: gemma3 divides n_embd by n_head for 62-layer models",
              patch: ["gemma3.block_count": .uint32(62), "gemma3.attention.head_count": .uint32(0)]),
        .init("real-kv-heads-not-dividing-heads", .realModel, culprit: "gemma3.attention.head_count_kv", before: "failed cleanly (tensor shapes), but info called it fine",
              patch: ["gemma3.attention.head_count_kv": .uint32(3)]),
        .init("real-eos-token-outside-vocabulary", .realModel, culprit: "tokenizer.ggml.eos_token_id", before: "loaded and ran (llama.cpp silently used token 2 instead)",
              patch: ["tokenizer.ggml.eos_token_id": .uint32(262_144)]),
    ]
}
