import CLlama

extension GGUFFile {
    /// One tensor descriptor of a GGUF file: its name, shape and storage type.
    public struct Tensor: Sendable, Equatable {
        /// The tensor's name, e.g. `blk.0.attn_q.weight`.
        public let name: String
        /// The number of elements along each dimension, innermost first, without
        /// trailing dimensions of size 1 (at least one dimension).
        public let dimensions: [Int64]
        /// ggml's name for the storage type, e.g. `f32` or `q4_K`.
        public let typeName: String
        /// ggml's type id (`enum ggml_type`).
        let typeID: UInt32

        /// Whether the weights are stored as 32-bit floats.
        var isFloat32: Bool { typeID == GGML_TYPE_F32.rawValue }

        /// Whether the tensor is a plain integer array (llama.cpp never uses these in float arithmetic).
        var isInteger: Bool {
            [GGML_TYPE_I8, GGML_TYPE_I16, GGML_TYPE_I32, GGML_TYPE_I64].map(\.rawValue).contains(typeID)
        }

        /// The layer number of a `blk.N.` tensor, when the name has one.
        var layer: Int? {
            guard name.hasPrefix("blk.") else { return nil }
            return Int(name.dropFirst(4).prefix { $0 != "." })
        }
    }
}

extension GGUFHeaderReader {
    /// Every tensor descriptor, in file order.
    package func tensors() -> [GGUFFile.Tensor] {
        (0..<gguf_get_n_tensors(context)).map { index in
            let type = gguf_get_tensor_type(context, index)
            var dimensions: [Int64] = []
            if let ne = gguf_get_tensor_ne(context, index) {
                dimensions = (0..<Int(GGML_MAX_DIMS)).map { ne[$0] }
                while dimensions.count > 1, dimensions.last == 1 { dimensions.removeLast() }
            }
            return GGUFFile.Tensor(
                name: gguf_get_tensor_name(context, index).map { String(cString: $0) } ?? "",
                dimensions: dimensions,
                typeName: String(cString: ggml_type_name(type)),
                typeID: type.rawValue)
        }
    }
}
