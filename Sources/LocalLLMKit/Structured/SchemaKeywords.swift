/// The JSON Schema keywords LocalLLMKit enforces, by the kind of value they constrain.
///
/// Every other keyword is rejected with ``OutputFormat/Error/invalidSchema(property:reason:)``
/// naming it, so that a schema never constrains less than it says. docs/structured-output.md
/// ("JSON Schema keywords") lists the same set.
enum SchemaKeywords {
    /// Keywords that only annotate; they need no rule.
    static let annotations: Set<String> = [
        "description", "title", "$schema", "$id", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly",
    ]
    /// Keywords of strings.
    static let string: Set<String> = ["minLength", "maxLength", "pattern", "format"]
    /// Keywords of numbers and integers.
    static let number: Set<String> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
    /// Keywords of arrays.
    static let array: Set<String> = ["items", "prefixItems", "minItems", "maxItems", "uniqueItems"]
    /// Keywords of objects.
    static let object: Set<String> = ["properties", "required", "additionalProperties"]
    /// Keywords for any value.
    static let general: Set<String> = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
    /// Containers of definitions, read at the top level only.
    static let definitions: Set<String> = ["$defs", "definitions"]
    /// The values of `type`.
    static let types: [String] = ["null", "boolean", "integer", "number", "string", "array", "object"]
    /// Values of `format`, each enforced by LocalLLMKit's own grammar.
    static let formats: Set<String> = [
        "date", "time", "date-time", "uuid", "uuid1", "uuid2", "uuid3", "uuid4", "uuid5", "email", "uri", "ipv4", "hostname",
    ]

    /// Every keyword that is not an annotation.
    static let constraints = string.union(number).union(array).union(object).union(general).union(definitions)

    /// The keywords that apply to values of `type`.
    static func keywords(of type: String) -> Set<String> {
        switch type {
        case "string": return string
        case "integer", "number": return number
        case "array": return array
        case "object": return object
        default: return []
        }
    }

    /// The type implied by a schema without `type`, from the keywords it uses; nil when it
    /// uses none (any value), `.failure` naming two keywords of different types.
    static func impliedType(of keys: [String]) -> Result<String?, OutputFormat.Error> {
        var found: (type: String, keyword: String)?
        for key in keys {
            let type: String
            if string.contains(key) { type = "string" }
            else if number.contains(key) { type = "number" }
            else if array.contains(key) { type = "array" }
            else if object.contains(key) { type = "object" }
            else { continue }
            if let found, found.type != type {
                return .failure(.invalidSchema(property: "", reason: "\"\(found.keyword)\" and \"\(key)\" apply to different types; "
                                               + "add \"type\""))
            }
            found = found ?? (type, key)
        }
        return .success(found?.type)
    }
}
