import Foundation
import LocalLLMKit

/// A generator of GGUF files whose header passes ggml's reader (or, for the last
/// few, fails it) but holds values that llama.cpp aborts on, or misbehaves with.
///
/// Each variant starts from a model that loads and runs: the tiny synthetic llama or
/// gemma3 of ``GGUFBuilder/tinyModel(_:)``, or the real default model's header (with
/// sparse, all-zero weights). `before` records what the pinned llama.cpp did with the
/// file before LocalLLMKit checked it, measured with `llmkit run -m FILE hi`.
///
/// Shared with the CLI tests through a symbolic link: Foundation and the public API only.
struct CorruptGGUF: Sendable, CustomStringConvertible {
    enum Base: Sendable { case tinyLlama, tinyGemma, realModel }

    let name: String
    /// What the error message must name: the metadata key or tensor at fault.
    let culprit: String
    /// What llama.cpp did with this file before the loadability check existed.
    let before: String
    let base: Base
    private let edit: @Sendable (inout GGUFBuilder) -> Void
    private let patch: [String: GGUFHeaderPatch.Scalar]
    private let shape: GGUFBuilder.TinyShape?

    var description: String { name }

    private init(_ name: String, _ base: Base, culprit: String, before: String, shape: GGUFBuilder.TinyShape? = nil,
                 patch: [String: GGUFHeaderPatch.Scalar] = [:], edit: @escaping @Sendable (inout GGUFBuilder) -> Void = { _ in }) {
        self.name = name
        self.base = base
        self.culprit = culprit
        self.before = before
        self.shape = shape
        self.patch = patch
        self.edit = edit
    }

    /// Writes the variant into `folder` and returns its path.
    func write(in folder: URL) throws -> URL {
        let url = folder.appending(path: "\(name).gguf")
        switch base {
        case .realModel:
            let model = try LocalModel.defaultModelURL()
            let file = try GGUFFile(contentsOf: model)
            try GGUFHeaderPatch.sparseCopy(of: model, headerSize: Int(file.dataOffset), fileSize: file.fileSize,
                                           to: url, setting: patch)
        case .tinyLlama, .tinyGemma:
            var builder = GGUFBuilder.tinyModel(shape ?? Self.shape(base))
            edit(&builder)
            try builder.write(to: url)
        }
        return url
    }

    private static func shape(_ base: Base) -> GGUFBuilder.TinyShape {
        var shape = GGUFBuilder.TinyShape()
        if base == .tinyGemma { shape.architecture = "gemma3" }
        return shape
    }

    private static func shape(_ base: Base, _ change: (inout GGUFBuilder.TinyShape) -> Void) -> GGUFBuilder.TinyShape {
        var result = shape(base)
        change(&result)
        return result
    }

    private static let assertion = "aborted: GGML_ASSERT"

    /// Every variant: one or more for each class of value that llama.cpp asserts on.
    static let all: [CorruptGGUF] = hyperparameters + vocabulary + tensors + realModel

    static let hyperparameters: [CorruptGGUF] = [
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
        .init("per-layer-array-too-short", .tinyLlama, culprit: "llama.attention.head_count", before: "failed cleanly (llama.cpp throws), but info called it fine") {
            $0.set("llama.attention.head_count", .uint32s([4]))
        },
        .init("context-length-zero", .tinyLlama, culprit: "llama.context_length", before: "run said the prompt does not fit in 0 tokens; info called it fine") {
            $0.set("llama.context_length", .uint32(0))
        },
    ]

    static let vocabulary: [CorruptGGUF] = [
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
        .init("token-types-too-short", .tinyLlama, culprit: "tokenizer.ggml.token_type", before: "failed cleanly (llama.cpp throws), but info called it fine") {
            $0.set("tokenizer.ggml.token_type", .int32s([2, 3, 3]))
        },
    ]

    static let tensors: [CorruptGGUF] = [
        .init("norm-weight-quantized", .tinyLlama, culprit: "tensor blk.0.attn_norm.weight", before: "aborted: binary_op: unsupported types (GGML_ABORT) at the first decode") {
            $0.replaceTensor("blk.0.attn_norm.weight", type: 8)
        },
        .init("norm-weight-f16", .tinyGemma, culprit: "tensor output_norm.weight", before: "aborted: binary_op: unsupported types (GGML_ABORT) at the first decode") {
            $0.replaceTensor("output_norm.weight", type: 1)
        },
        .init("block-count-beyond-tensors", .tinyLlama, culprit: "llama.block_count", before: "failed cleanly (llama.cpp throws), but info called it fine") {
            $0.set("llama.block_count", .uint32(3))
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

    static let realModel: [CorruptGGUF] = [
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

    /// The tiny models' tokens, changed by `change`.
    private static func tinyTokens(_ change: (inout [String]) -> Void) -> [String] {
        guard case .strings(var tokens)? = GGUFBuilder.tinyModel().value("tokenizer.ggml.tokens") else { return [] }
        change(&tokens)
        return tokens
    }
}
