import Foundation
import LocalLLMKit

/// OpenAI's embeddings response: `{"object": "list", "data": [{"object": "embedding", "index",
/// "embedding"}], "model", "usage"}`.
enum EmbeddingJSON {
    /// The response for `embeddings`, each vector as JSON numbers or as base64.
    static func response(_ embeddings: LocalModel.Embeddings, model: String,
                         format: EmbeddingsRequest.EncodingFormat) -> OrderedJSON {
        let data = embeddings.vectors.enumerated().map { index, vector -> OrderedJSON in
            .object([
                ("object", .string("embedding")), ("index", .integer(index)),
                ("embedding", format == .base64 ? .string(base64(vector)) : .array(vector.map(number))),
            ])
        }
        let tokens = embeddings.totalTokenCount
        return .object([
            ("object", .string("list")), ("data", .array(data)), ("model", .string(model)),
            ("usage", .object([("prompt_tokens", .integer(tokens)), ("total_tokens", .integer(tokens))])),
        ])
    }

    /// The vector's float32 values, little-endian, in base64 (what OpenAI's clients decode with
    /// `numpy.frombuffer(…, dtype="float32")`).
    static func base64(_ vector: [Float]) -> String {
        var bytes = Data(capacity: vector.count * MemoryLayout<UInt32>.size)
        for value in vector {
            let bits = value.bitPattern.littleEndian
            withUnsafeBytes(of: bits) { bytes.append(contentsOf: $0) }
        }
        return bytes.base64EncodedString()
    }

    /// A float as the shortest decimal that reads back as the same float (`0.09361116`, not the
    /// `0.09361115843057632` of its Double).
    static func number(_ value: Float) -> OrderedJSON {
        .number(Double(value.description) ?? Double(value))
    }
}
