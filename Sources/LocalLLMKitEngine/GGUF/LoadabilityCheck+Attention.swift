/// Attention, rope, float and sliding-window hyperparameters.
extension LoadabilityCheck {
    /// The rope scaling types llama.cpp knows (LLAMA_ROPE_SCALING_TYPES in src/llama-model.cpp).
    package static let ropeScalingTypes: Set<String> = ["none", "linear", "yarn", "longrope"]
    /// Architectures whose `rope.dimension_count` must equal the head size (load_hparams throws otherwise).
    package static let fullRopeArchitectures: Set<String> = ["llama", "deci", "falcon", "llama-embed"]

    /// The head size of keys and of values, as load_hparams derives it.
    package var headSizes: (key: Int, value: Int) {
        let embedding = (try? unsigned("embedding_length")) ?? 0
        let derived = headCounts.first.map { $0 > 0 ? embedding / $0 : 0 } ?? 0
        return ((try? unsigned("attention.key_length")) ?? derived,
                (try? unsigned("attention.value_length")) ?? derived)
    }

    /// Head counts, key-value head counts, feed-forward sizes, head sizes and rope dimensions.
    package mutating func checkAttention() throws {
        headCounts = try perLayer("attention.head_count") ?? Array(repeating: 0, count: layerCount)
        keyValueHeadCounts = try perLayer("attention.head_count_kv") ?? headCounts
        for layer in 0..<layerCount {
            let heads = headCounts[layer], kvHeads = keyValueHeadCounts[layer]
            if isPlainTransformer {
                // A plain transformer layer with no heads divides by zero (gemma3 computes
                // n_embd / n_head) or builds a graph that ggml asserts on.
                guard heads > 0 else {
                    throw reject(key("attention.head_count"), describe("attention.head_count"),
                                 "layer \(layer) has no attention heads")
                }
                guard kvHeads > 0 else {
                    throw reject(key("attention.head_count_kv"), describe("attention.head_count_kv"),
                                 "layer \(layer) has no key-value heads")
                }
            }
            // The weights of every layer are sized from layer 0 (LLAMA_LOAD_LOCALS) but
            // the cache from the layer's own count: ggml asserts when the two differ.
            if isPlainTransformer, kvHeads != keyValueHeadCounts[0] {
                throw reject(key("attention.head_count_kv"), describe("attention.head_count_kv"),
                             "layer \(layer) has \(kvHeads) key-value heads but layer 0 has \(keyValueHeadCounts[0]); \(architecture) needs the same count in every layer")
            }
            // Grouped-query attention broadcasts key-value heads over query heads:
            // ggml_mul_mat asserts that they divide evenly (ggml_can_mul_mat).
            if heads > 0, kvHeads > 0, kvHeads > heads || heads % kvHeads != 0 {
                throw reject(key("attention.head_count_kv"), describe("attention.head_count_kv"),
                             "layer \(layer)'s \(kvHeads) key-value heads must divide its \(heads) attention heads")
            }
        }
        if isPlainTransformer, let sizes = try perLayer("feed_forward_length"), let layer = sizes.firstIndex(of: 0) {
            throw reject(key("feed_forward_length"), describe("feed_forward_length"),
                         "layer \(layer) has an empty feed-forward block (ggml asserts on its matrix product)")
        }
        for suffix in ["attention.key_length", "attention.value_length",
                       "attention.key_length_swa", "attention.value_length_swa"] {
            if let size = try unsigned(suffix), size == 0 {
                throw reject(key(suffix), "0", "a head size must be positive")
            }
        }
        try checkRope()
    }

    /// ggml's rope kernels assert `n_dims <= ne0` and `n_dims % 2 == 0`; load_hparams
    /// asserts that the scaling type is known.
    private func checkRope() throws {
        if let type = value("rope.scaling.type") {
            guard let name = type.stringValue, Self.ropeScalingTypes.contains(name) else {
                throw reject(key("rope.scaling.type"), type.description,
                             "unknown rope scaling type (llama.cpp knows \(Self.ropeScalingTypes.sorted().joined(separator: ", ")))")
            }
        }
        guard let heads = headCounts.first, heads > 0 else { return }   // llama.cpp uses no rope then
        let headSize = headSizes.key
        let rotated = try unsigned("rope.dimension_count") ?? headSize
        try checkRotated(rotated, headSize: headSize, dimensionKey: "rope.dimension_count", headKey: "attention.key_length")
        if Self.fullRopeArchitectures.contains(architecture), rotated != headSize {
            throw reject(key("rope.dimension_count"), String(rotated),
                         "\(architecture) rotates whole heads, so it must equal the head size (\(headSize))")
        }
        let slidingHeadSize = try unsigned("attention.key_length_swa") ?? headSize
        let slidingRotated = try unsigned("rope.dimension_count_swa") ?? rotated
        try checkRotated(slidingRotated, headSize: slidingHeadSize,
                         dimensionKey: "rope.dimension_count_swa", headKey: "attention.key_length_swa")
        for (index, count) in headCounts.enumerated() {
            let width = max(headSize, slidingHeadSize).multipliedReportingOverflow(by: max(count, keyValueHeadCounts[index]))
            if width.overflow || width.partialValue > Int(Int32.max) {
                throw reject(key("attention.head_count"), String(count),
                             "layer \(index)'s heads times the head size (\(max(headSize, slidingHeadSize))) overflow")
            }
        }
    }

    private func checkRotated(_ rotated: Int, headSize: Int, dimensionKey: String, headKey: String) throws {
        let culprit = value(dimensionKey) != nil ? dimensionKey : headKey
        guard rotated <= headSize else {
            throw reject(key(culprit), String(rotated), "rope cannot rotate more dimensions than a head has (\(headSize))")
        }
        guard rotated % 2 == 0 else {
            throw reject(key(culprit), String(rotated), "rope rotates pairs of dimensions, so the count must be even")
        }
    }

    /// Every floating-point hyperparameter must be finite, and every epsilon positive:
    /// ggml's norm kernels assert `eps >= 0` (a NaN fails it too) and divide by it.
    package func checkNumbers() throws {
        for (name, entry) in file.metadata where name.hasPrefix(architecture + ".") {
            let numbers: [GGUFValue]
            switch entry {
            case .array(let items): numbers = items
            default: numbers = [entry]
            }
            let isEpsilon = name.split(separator: ".").last?.contains("epsilon") ?? false
            for number in numbers {
                if case .float(let float) = number, !float.isFinite {
                    throw reject(name, entry.description, "must be a finite number")
                }
                if isEpsilon, let epsilon = number.doubleValue, !(epsilon > 0) {
                    throw reject(name, entry.description, "an epsilon must be positive (ggml's norms assert eps >= 0 and divide by it)")
                }
            }
        }
    }

    /// With a sliding window, llama.cpp builds a sliding-window cache and asserts that
    /// some layer uses it (GGML_ASSERT(hparams.is_swa_any()) in create_memory).
    package func checkSlidingWindow() throws {
        guard let window = try unsigned("attention.sliding_window"), window > 0,
              let pattern = value("attention.sliding_window_pattern") else { return }
        let patternKey = key("attention.sliding_window_pattern")
        switch pattern {
        case .array(let flags):
            guard flags.count <= Self.maximumLayers else {
                throw reject(patternKey, pattern.description, "has more entries than llama.cpp's \(Self.maximumLayers) layers")
            }
            let sliding = flags.prefix(layerCount).contains { flag in
                if case .bool(let on) = flag { return on }
                return (flag.intValue ?? 0) != 0
            }
            guard sliding else {
                throw reject(patternKey, pattern.description, "no layer uses the \(window)-token sliding window")
            }
        case .largeArray:
            throw reject(patternKey, pattern.description, "has more entries than llama.cpp's \(Self.maximumLayers) layers")
        default:
            // Layer i slides unless i % n == n - 1, so n = 1 leaves no sliding layer.
            if try unsigned("attention.sliding_window_pattern") == 1 {
                throw reject(patternKey, "1", "no layer uses the \(window)-token sliding window")
            }
        }
    }
}
