import LocalLLMKit

/// A `POST /v1/embeddings` body, checked the way OpenAI checks it: each bad value is a 400 that
/// names its parameter. `user` is ignored, as the other endpoints ignore fields nobody reads.
struct EmbeddingsRequest: Equatable {
    /// How the vectors are written: JSON numbers, or base64 of their little-endian float32 bytes.
    enum EncodingFormat: String, Equatable {
        /// `[0.0123, -0.0456, …]`, the default.
        case float
        /// The vector's float32 bytes, little-endian, in base64 (what OpenAI's clients ask for).
        case base64
    }

    /// The texts to embed, in order: one for a string `input`.
    var inputs: [String]
    /// `encoding_format` (default `float`).
    var encodingFormat: EncodingFormat
    /// `dimensions`: when given, it must be the model's own length (vectors cannot be shortened).
    var dimensions: Int?
    /// `truncate` (text-embeddings-inference's and llama-server's extension; default false): cut
    /// an over-long input to the model's limit instead of refusing it.
    var truncates: Bool

    /// The most texts one request may hold (OpenAI's limit too).
    static let maximumInputs = 2048

    /// Reads and checks a request body.
    /// - Throws: a 400 ``APIError`` naming `input`, `encoding_format`, `dimensions` or `truncate`.
    init(_ body: RequestBody) throws(APIError) {
        inputs = try Self.inputs(body)
        switch try body.string("encoding_format") {
        case nil:
            encodingFormat = .float
        case let name?:
            guard let format = EncodingFormat(rawValue: name) else {
                throw .invalid("'encoding_format' is '\(name.prefix(64))'; it must be \"float\" or \"base64\".",
                               param: "encoding_format")
            }
            encodingFormat = format
        }
        dimensions = try body.integer("dimensions", in: 1...(1 << 20))
        truncates = try body.bool("truncate") ?? false
    }

    /// `input`: a string, or an array of 1 to ``maximumInputs`` strings. Token ids (an array of
    /// integers, or of integer arrays) are refused: the server embeds text.
    private static func inputs(_ body: RequestBody) throws(APIError) -> [String] {
        switch body["input"] {
        case .string(let text)?:
            return [text]
        case .array(let items)?:
            guard !items.isEmpty else { throw .invalid("'input' is an empty array: send at least one string.", param: "input") }
            guard items.count <= maximumInputs else {
                throw .invalid("'input' holds \(items.count) texts; this server embeds at most \(maximumInputs) per request.",
                               param: "input")
            }
            if items.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                throw .invalid("'input' is an array of token ids, which this server does not embed: send a string or an array of strings.",
                               param: "input")
            }
            var texts: [String] = []
            texts.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                switch item {
                case .string(let text):
                    texts.append(text)
                case .array:
                    throw .invalid("'input[\(index)]' is an array (token ids?), which this server does not embed: every item of 'input' must be a string.",
                                   param: "input")
                default:
                    throw .invalid("'input[\(index)]' is \(kind(of: item)): every item of 'input' must be a string.", param: "input")
                }
            }
            return texts
        case nil:
            throw .invalid("'input' is required: a string or an array of strings.", param: "input")
        default:
            throw .invalid("'input' must be a string or an array of strings.", param: "input")
        }
    }

    /// What a JSON value is, for an error message.
    private static func kind(of value: OrderedJSON) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
