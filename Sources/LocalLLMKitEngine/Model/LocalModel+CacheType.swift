import CLlama

extension LocalModel.Configuration {
    /// The number format of the KV cache's keys or of its values (llama.cpp's `--cache-type-k`
    /// and `--cache-type-v`). `f16` (the default) is exact as llama.cpp computes; `q8_0` holds
    /// the same context in about half the memory (34 bytes per 32 numbers), `q4_0` in about a
    /// quarter, at a cost in accuracy that grows with the context. A quantized value cache
    /// needs flash attention (``FlashAttention``).
    public enum CacheType: String, Sendable, Hashable, CaseIterable {
        /// 32-bit floats.
        case f32
        /// 16-bit floats (the default).
        case f16
        /// bfloat16.
        case bf16
        /// 8-bit blocks of 32.
        case q8_0
        /// 4-bit blocks of 32.
        case q4_0
        /// 4-bit blocks of 32 with an offset.
        case q4_1
        /// 4-bit non-linear blocks of 32.
        case iq4_nl
        /// 5-bit blocks of 32.
        case q5_0
        /// 5-bit blocks of 32 with an offset.
        case q5_1

        /// Whether its numbers are stored in quantized blocks.
        public var isQuantized: Bool { ![.f32, .f16, .bf16].contains(self) }

        /// The numbers in one block: a head's size must be a multiple of it.
        var blockSize: Int { isQuantized ? 32 : 1 }

        /// ggml's type.
        var ggmlType: ggml_type {
            switch self {
            case .f32: GGML_TYPE_F32
            case .f16: GGML_TYPE_F16
            case .bf16: GGML_TYPE_BF16
            case .q8_0: GGML_TYPE_Q8_0
            case .q4_0: GGML_TYPE_Q4_0
            case .q4_1: GGML_TYPE_Q4_1
            case .iq4_nl: GGML_TYPE_IQ4_NL
            case .q5_0: GGML_TYPE_Q5_0
            case .q5_1: GGML_TYPE_Q5_1
            }
        }
    }

    /// Whether attention runs as one fused kernel (llama.cpp's `--flash-attn`): less memory
    /// for long contexts, and what a quantized value cache needs.
    public enum FlashAttention: String, Sendable, Hashable, CaseIterable {
        /// Always.
        case on
        /// Never (a quantized value cache is then refused).
        case off
        /// Where every device of the model supports it (llama.cpp's default), and always with a
        /// quantized value cache.
        case auto

        var llamaType: llama_flash_attn_type {
            switch self {
            case .on: LLAMA_FLASH_ATTN_TYPE_ENABLED
            case .off: LLAMA_FLASH_ATTN_TYPE_DISABLED
            case .auto: LLAMA_FLASH_ATTN_TYPE_AUTO
            }
        }
    }

    /// Checks the cache types against the flash attention setting.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
    func validateCacheTypes() throws {
        if context.valueCacheType.isQuantized && context.flashAttention == .off {
            throw LocalModel.Error.invalidOption(
                name: "valueCacheType",
                reason: "a quantized value cache (\(context.valueCacheType.rawValue)) needs flash attention, which flashAttention .off turns off; "
                    + "use .on or .auto, or an f16 value cache")
        }
    }

    /// Checks the cache types against the model's head sizes: llama.cpp refuses a quantized
    /// type whose blocks do not divide a head when flash attention is on (without saying why to
    /// its caller), and without it would view the cache across blocks.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
    func validateCacheTypes(for file: GGUFFile) throws {
        let sizes = file.attentionHeadSizes
        for (name, type, heads) in [("keyCacheType", context.keyCacheType, sizes.keys), ("valueCacheType", context.valueCacheType, sizes.values)] {
            if let size = heads.first(where: { $0 % type.blockSize != 0 }) {
                throw LocalModel.Error.invalidOption(
                    name: name, reason: "\(type.rawValue) stores blocks of \(type.blockSize) numbers, and this model's attention heads "
                        + "have \(size), not a multiple of it; use f16")
            }
        }
    }
}

extension GGUFFile {
    /// The head sizes of keys and of values, as llama.cpp derives them (`attention.key_length`,
    /// else the embedding length over the head count), with those of sliding-window layers.
    package var attentionHeadSizes: (keys: [Int], values: [Int]) {
        guard let architecture else { return ([], []) }
        func number(_ suffix: String) -> Int? {
            switch metadata["\(architecture).\(suffix)"] {
            case .array(let items)?: return items.compactMap(\.intValue).first { $0 > 0 }
            case let value?: return value.intValue
            case nil: return nil
            }
        }
        let heads = number("attention.head_count") ?? 0
        let derived = heads > 0 ? (number("embedding_length") ?? 0) / heads : 0
        let key = number("attention.key_length") ?? derived, value = number("attention.value_length") ?? derived
        let keys = [key, number("attention.key_length_swa") ?? key].filter { $0 > 0 }
        let values = [value, number("attention.value_length_swa") ?? value].filter { $0 > 0 }
        return (keys, values)
    }
}
