/// Rejects JSON Schema keywords that llama.cpp's converter would silently ignore, so
/// that a schema never constrains less than it says.
enum JSONSchemaChecker {
    /// Keywords llama.cpp's json_schema_to_grammar turns into grammar rules.
    static let supported: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
        "enum", "const", "oneOf", "anyOf", "allOf", "$ref", "$defs", "definitions", "pattern", "format",
        "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    ]
    /// Keywords that only annotate and need no rule.
    static let annotations: Set<String> = [
        "description", "title", "$schema", "$id", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly",
    ]
    /// Values of `format` llama.cpp knows.
    static let formats: Set<String> = ["date", "time", "date-time", "uuid", "uuid1", "uuid2", "uuid3", "uuid4", "uuid5"]

    /// Parses and checks a JSON Schema document, keeping its key order.
    /// - Throws: ``LLMKitError/invalidSchema(property:reason:)`` naming where the problem is.
    static func check(_ document: String) throws -> OrderedJSON {
        let value: OrderedJSON
        do {
            value = try OrderedJSONParser.parse(document)
        } catch {
            throw LLMKitError.invalidSchema(property: "schema", reason: "not valid JSON: \(error)")
        }
        try check(value, path: "schema")
        return value
    }

    private static func check(_ value: OrderedJSON, path: String) throws {
        if case .bool = value { return }           // `true` and `false` are schemas too
        guard case .object(let schema) = value else {
            throw LLMKitError.invalidSchema(property: path, reason: "a schema must be an object")
        }
        func member(_ key: String) -> OrderedJSON? { schema.first { $0.0 == key }?.1 }
        for (key, _) in schema where !(supported.contains(key) || annotations.contains(key)) {
            throw LLMKitError.invalidSchema(property: path, reason: "the keyword \"\(key)\" is not supported")
        }
        if case .string(let format)? = member("format"), !formats.contains(format) {
            throw LLMKitError.invalidSchema(property: path, reason: "the format \"\(format)\" is not supported")
        }
        for key in ["properties", "$defs", "definitions"] {
            if case .object(let children)? = member(key) {
                for (name, child) in children { try check(child, path: path + "." + name) }
            }
        }
        for key in ["items", "additionalProperties"] {
            if let child = member(key) { try check(child, path: path + (key == "items" ? "[]" : "[*]")) }
        }
        for key in ["prefixItems", "oneOf", "anyOf", "allOf"] {
            if case .array(let children)? = member(key) {
                for (index, child) in children.enumerated() { try check(child, path: "\(path).\(key)[\(index)]") }
            }
        }
    }
}
