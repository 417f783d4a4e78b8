import Foundation

/// Writes small GGUF v3 files by hand, for tests of the header reader and of
/// llama.cpp's loading (``tinyModel(_:)`` builds a whole model that loads and runs).
///
/// Shared by the test targets through LocalLLMKitTestSupport: Foundation only.
package struct GGUFBuilder {
    package enum Value {
        case string(String)
        case uint32(UInt32)
        case int32(Int32)
        case float32(Float)
        case bool(Bool)
        case strings([String])
        case uint32s([UInt32])
        case int32s([Int32])
        case float32s([Float])
        case bools([Bool])
        case uint8s([UInt8])
    }

    package struct Tensor {
        package var name: String
        package var dimensions: [UInt64]
        package var type: UInt32 = 0            // GGML_TYPE_F32
        package var offset: UInt64

        /// A tensor entry; `offset` is its data's place after the header.
        package init(name: String, dimensions: [UInt64], type: UInt32 = 0, offset: UInt64) {
            (self.name, self.dimensions, self.type, self.offset) = (name, dimensions, type, offset)
        }
    }

    package var version: UInt32 = 3
    package var keyValues: [(String, Value)] = [("general.architecture", .string("llama"))]
    package var tensors: [Tensor] = []
    /// Bytes of tensor data written after the header.
    package var dataBytes = 0

    /// A GGUF file of version 3 with only `general.architecture` (llama).
    package init() {}

    /// Sets `key`, replacing its value where it is already present.
    package mutating func set(_ key: String, _ value: Value) {
        if let index = keyValues.firstIndex(where: { $0.0 == key }) {
            keyValues[index].1 = value
        } else {
            keyValues.append((key, value))
        }
    }

    /// Names `architecture` as the model's, moving every hyperparameter of the old one
    /// (`llama.block_count` becomes `nanbeige.block_count`).
    package mutating func renameArchitecture(to architecture: String) {
        guard case .string(let old)? = value("general.architecture") else { return }
        keyValues = keyValues.map { key, value in
            (key.hasPrefix(old + ".") ? architecture + key.dropFirst(old.count) : key, value)
        }
        set("general.architecture", .string(architecture))
    }

    /// Removes `key`.
    package mutating func remove(_ key: String) {
        keyValues.removeAll { $0.0 == key }
    }

    /// The value of `key`, when set.
    package func value(_ key: String) -> Value? {
        keyValues.first { $0.0 == key }?.1
    }

    /// Appends a zero-filled tensor after the others, 32-byte aligned. Types: 0 f32,
    /// 1 f16, 8 q8_0, 9 q8_1, 24 i8, 25 i16, 26 i32, 27 i64, 28 f64, 30 bf16.
    package mutating func addTensor(_ name: String, _ dimensions: [UInt64], type: UInt32 = 0) {
        let elements = Int(dimensions.reduce(1, *))
        let size: Int
        switch type {
        case 24: size = elements
        case 1, 25, 30: size = elements * 2
        case 8: size = elements / 32 * 34
        case 9: size = elements / 32 * 36
        case 27, 28: size = elements * 8
        default: size = elements * 4
        }
        tensors.append(Tensor(name: name, dimensions: dimensions, type: type, offset: UInt64(dataBytes)))
        dataBytes += (size + 31) / 32 * 32
    }

    /// Replaces the tensor called `name` by one with other dimensions or type, laying
    /// out the data section again.
    package mutating func replaceTensor(_ name: String, dimensions: [UInt64]? = nil, type: UInt32? = nil) {
        let old = tensors
        tensors = []
        dataBytes = 0
        for tensor in old {
            let renamed = tensor.name == name
            addTensor(tensor.name, renamed ? dimensions ?? tensor.dimensions : tensor.dimensions,
                      type: renamed ? type ?? tensor.type : tensor.type)
        }
    }

    package func bytes() -> [UInt8] {
        var out: [UInt8] = Array("GGUF".utf8)
        append(version, to: &out)
        append(UInt64(tensors.count), to: &out)
        append(UInt64(keyValues.count), to: &out)
        for (key, value) in keyValues {
            appendString(key, to: &out)
            appendValue(value, to: &out)
        }
        for tensor in tensors {
            appendString(tensor.name, to: &out)
            append(UInt32(tensor.dimensions.count), to: &out)
            tensor.dimensions.forEach { append($0, to: &out) }
            append(tensor.type, to: &out)
            append(tensor.offset, to: &out)
        }
        while out.count % 32 != 0 { out.append(0) }
        out += [UInt8](repeating: 0, count: dataBytes)
        return out
    }

    package func write(to url: URL) throws {
        try Data(bytes()).write(to: url)
    }

    private func appendValue(_ value: Value, to out: inout [UInt8]) {
        func array<T>(_ type: UInt32, _ items: [T], _ each: (T) -> Void) {
            append(UInt32(9), to: &out)
            append(type, to: &out)
            append(UInt64(items.count), to: &out)
            items.forEach(each)
        }
        switch value {
        case .string(let text): append(UInt32(8), to: &out); appendString(text, to: &out)
        case .uint32(let number): append(UInt32(4), to: &out); append(number, to: &out)
        case .int32(let number): append(UInt32(5), to: &out); append(number, to: &out)
        case .float32(let number): append(UInt32(6), to: &out); append(number.bitPattern, to: &out)
        case .bool(let flag): append(UInt32(7), to: &out); out.append(flag ? 1 : 0)
        case .strings(let items): array(8, items) { appendString($0, to: &out) }
        case .uint32s(let items): array(4, items) { append($0, to: &out) }
        case .int32s(let items): array(5, items) { append($0, to: &out) }
        case .float32s(let items): array(6, items) { append($0.bitPattern, to: &out) }
        case .bools(let items): array(7, items) { out.append($0 ? 1 : 0) }
        case .uint8s(let items): array(0, items) { out.append($0) }
        }
    }

    private func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    private func appendString(_ text: String, to out: inout [UInt8]) {
        append(UInt64(text.utf8.count), to: &out)
        out += text.utf8
    }
}

extension GGUFBuilder {
    /// The shape of a ``tinyModel(_:)``.
    package struct TinyShape {
        package var architecture = "llama"
        package var vocabularySize = 300
        package var embedding: UInt64 = 64
        package var layers = 2
        package var heads: UInt32 = 4
        package var keyValueHeads: UInt32 = 2
        package var feedForward: UInt64 = 128
        /// The head size; the embedding length over the heads when nil.
        package var headSize: UInt64?

        /// The default shape (a two-layer llama of width 64 over 300 tokens), with `layers` layers.
        package init(layers: Int = 2) {
            self.layers = layers
        }
    }

    /// A complete model of about 0.3 MB that llama.cpp loads and runs: a llama or
    /// gemma3 transformer with zero weights and an SPM vocabulary of `<unk>`, `<s>`,
    /// `</s>`, the 256 byte tokens and filler words.
    package static func tinyModel(_ shape: TinyShape = TinyShape()) -> GGUFBuilder {
        let arch = shape.architecture, gemma = arch == "gemma3"
        let headSize = shape.headSize ?? shape.embedding / UInt64(shape.heads)
        var builder = GGUFBuilder()
        builder.keyValues = [
            ("general.architecture", .string(arch)), ("general.name", .string("tiny \(arch)")),
            ("\(arch).context_length", .uint32(256)), ("\(arch).embedding_length", .uint32(UInt32(shape.embedding))),
            ("\(arch).block_count", .uint32(UInt32(shape.layers))),
            ("\(arch).feed_forward_length", .uint32(UInt32(shape.feedForward))),
            ("\(arch).attention.head_count", .uint32(shape.heads)),
            ("\(arch).attention.head_count_kv", .uint32(shape.keyValueHeads)),
            ("\(arch).attention.layer_norm_rms_epsilon", .float32(1e-5)),
        ]
        if gemma {
            builder.keyValues += [
                ("\(arch).attention.key_length", .uint32(UInt32(headSize))),
                ("\(arch).attention.value_length", .uint32(UInt32(headSize))),
                ("\(arch).attention.sliding_window", .uint32(32)),
            ]
        } else {
            builder.keyValues.append(("\(arch).rope.dimension_count", .uint32(UInt32(headSize))))
        }
        let words = max(shape.vocabularySize - 259, 0)
        let tokens = ["<unk>", "<s>", "</s>"] + (0..<256).map { String(format: "<0x%02X>", $0) }
            + (0..<words).map { "\u{2581}w\($0)" }
        builder.keyValues += [
            ("tokenizer.ggml.model", .string("llama")),
            ("tokenizer.ggml.tokens", .strings(tokens)),
            ("tokenizer.ggml.scores", .float32s(tokens.indices.map { -Float($0) / 100 })),
            ("tokenizer.ggml.token_type", .int32s([2, 3, 3] + Array(repeating: 6, count: 256) + Array(repeating: 1, count: words))),
            ("tokenizer.ggml.bos_token_id", .uint32(1)), ("tokenizer.ggml.eos_token_id", .uint32(2)),
            ("tokenizer.ggml.unknown_token_id", .uint32(0)),
        ]
        let embedding = shape.embedding, vocabulary = UInt64(tokens.count)
        builder.addTensor("token_embd.weight", [embedding, vocabulary])
        builder.addTensor("output_norm.weight", [embedding])
        if !gemma { builder.addTensor("output.weight", [embedding, vocabulary]) }
        let queries = headSize * UInt64(shape.heads), keys = headSize * UInt64(shape.keyValueHeads)
        for layer in 0..<shape.layers {
            let prefix = "blk.\(layer)."
            builder.addTensor(prefix + "attn_norm.weight", [embedding])
            builder.addTensor(prefix + "attn_q.weight", [embedding, queries])
            builder.addTensor(prefix + "attn_k.weight", [embedding, keys])
            builder.addTensor(prefix + "attn_v.weight", [embedding, keys])
            builder.addTensor(prefix + "attn_output.weight", [queries, embedding])
            builder.addTensor(prefix + "ffn_norm.weight", [embedding])
            builder.addTensor(prefix + "ffn_gate.weight", [embedding, shape.feedForward])
            builder.addTensor(prefix + "ffn_up.weight", [embedding, shape.feedForward])
            builder.addTensor(prefix + "ffn_down.weight", [shape.feedForward, embedding])
            if gemma {
                builder.addTensor(prefix + "attn_q_norm.weight", [headSize])
                builder.addTensor(prefix + "attn_k_norm.weight", [headSize])
                builder.addTensor(prefix + "post_attention_norm.weight", [embedding])
                builder.addTensor(prefix + "post_ffw_norm.weight", [embedding])
            }
        }
        return builder
    }
}

extension GGUFBuilder.Value {
    /// A UGM `tokenizer.ggml.precompiled_charsmap`: the normalizer array's byte size,
    /// its packed nodes, then the replacement strings.
    package static func charsmap(nodes: [UInt32], replacements: [UInt8] = [0]) -> Self {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt32(nodes.count * 4).littleEndian) { bytes += $0 }
        for node in nodes { withUnsafeBytes(of: node.littleEndian) { bytes += $0 } }
        return .uint8s(bytes + replacements)
    }

    /// A charsmap of 512 nodes that replaces "h" by the string at `offset` of
    /// `replacements`: root base 256, the child for 0x68 a leaf whose value node is 400.
    package static func charsmapReplacingH(offset: UInt32 = 0, replacements: [UInt8] = Array("H\0".utf8)) -> Self {
        var nodes = [UInt32](repeating: 0, count: 512)
        nodes[0] = 256 << 10
        let child = 256 ^ 0x68
        nodes[child] = UInt32(child ^ 400) << 10 | 1 << 8 | 0x68
        nodes[400] = offset
        return charsmap(nodes: nodes, replacements: replacements)
    }
}

/// Copies a real model's header into a sparse file of the same size, whose weights
/// read as zeros, with scalar metadata values overwritten in place (so every offset
/// stays valid). Cheap even for large models: only the header is written.
package enum GGUFHeaderPatch {
    package enum Scalar {
        case uint32(UInt32)
        case float32(Float)
    }

    package struct Failure: Error, CustomStringConvertible { package let description: String }

    package static func sparseCopy(of source: URL, headerSize: Int, fileSize: Int64, to destination: URL,
                           setting values: [String: Scalar]) throws {
        let input = try FileHandle(forReadingFrom: source)
        var header = [UInt8](try input.read(upToCount: headerSize) ?? Data())
        try input.close()
        for (key, value) in values {
            // A key is stored as its length (UInt64) and bytes, then its type (UInt32) and value.
            var pattern: [UInt8] = []
            withUnsafeBytes(of: UInt64(key.utf8.count).littleEndian) { pattern += $0 }
            pattern += key.utf8
            guard let range = Data(header).range(of: Data(pattern)) else {
                throw Failure(description: "\(key) is not in \(source.path)")
            }
            let typeOffset = range.upperBound
            let type = header[typeOffset..<(typeOffset + 4)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let bits: UInt32
            switch value {
            case .uint32(let number) where type == 4: bits = number
            case .float32(let number) where type == 6: bits = number.bitPattern
            default: throw Failure(description: "\(key) has GGUF type \(type), not \(value)")
            }
            withUnsafeBytes(of: bits.littleEndian) { header.replaceSubrange((typeOffset + 4)..<(typeOffset + 8), with: $0) }
        }
        try Data(header).write(to: destination)
        let output = try FileHandle(forWritingTo: destination)
        try output.truncate(atOffset: UInt64(fileSize))
        try output.close()
    }
}

/// Copies the first `count` bytes of a file.
package func writePrefix(of source: URL, count: Int, to destination: URL) throws {
    let handle = try FileHandle(forReadingFrom: source)
    defer { try? handle.close() }
    try (handle.readData(ofLength: count)).write(to: destination)
}
