extension ChatCompletionBody {
    /// OpenAI's `response_format`.
    package enum ResponseFormat: Sendable, Equatable {
        case text
        /// `json_object`: any JSON object.
        case jsonObject
        /// `json_schema`: its name, its schema (nil: any object) and `strict`.
        case jsonSchema(name: String?, schema: OrderedJSON?, strict: Bool?)

        /// The format to ask for `format`; nil for free text and for a grammar (sent as
        /// llama-server's `grammar` field instead).
        /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a schema that cannot be read.
        package init?(_ format: OutputFormat) throws {
            let name: String
            let schema: OrderedJSON
            switch format {
            case .text, .grammar:
                return nil
            case .schema(let outputSchema):
                (name, schema) = (outputSchema.name, try outputSchema.jsonSchemaValue())
            case .jsonSchema(let document):
                (name, schema) = ("schema", try JSONSchemaChecker.parse(document))
            }
            // OpenAI wants a name of at most 64 letters, digits, `_` and `-`.
            let safeName = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" }.prefix(64))
            self = .jsonSchema(name: safeName.isEmpty ? "schema" : safeName, schema: schema, strict: true)
        }

        /// The output format a server constrains its answer to.
        package var outputFormat: OutputFormat {
            switch self {
            case .text: .text
            case .jsonObject, .jsonSchema(_, nil, _): .jsonSchema(#"{"type":"object"}"#)
            case .jsonSchema(_, let schema?, _): .jsonSchema(schema.serialized())
            }
        }

        package var json: OrderedJSON {
            switch self {
            case .text: return .object([("type", .string("text"))])
            case .jsonObject: return .object([("type", .string("json_object"))])
            case .jsonSchema(let name, let schema, let strict):
                var spec: [(String, OrderedJSON)] = []
                if let name { spec.append(("name", .string(name))) }
                if let strict { spec.append(("strict", .bool(strict))) }
                if let schema { spec.append(("schema", schema)) }
                return .object([("type", .string("json_schema")), ("json_schema", .object(spec))])
            }
        }
    }
}
