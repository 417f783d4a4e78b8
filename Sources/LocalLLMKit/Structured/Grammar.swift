import CLlamaBridge
import Foundation

/// llama.cpp's grammar tools, through the bridge.
enum Grammar {
    /// Converts a JSON Schema document to GBNF with llama.cpp's converter, except for
    /// numbers, whose bounds llama.cpp does not enforce: those get ``NumberGrammar`` rules.
    /// - Throws: ``LLMKitError/invalidSchema(property:reason:)`` with llama.cpp's reason.
    static func fromJSONSchema(_ document: OrderedJSON, name: String) throws -> String {
        var numbers: [String: String] = [:]
        let prepared = try replacingNumbers(in: document, path: name, rules: &numbers)
        var error: llmkit_error?
        guard let converted = llmkit_json_schema_to_grammar(prepared.serialized(), &error) else {
            throw LLMKitError.invalidSchema(property: name, reason: Bridge.take(error) ?? "llama.cpp cannot convert it")
        }
        defer { llmkit_string_free(converted) }
        var grammar = String(cString: converted)
        for (placeholder, expression) in numbers {
            // llama.cpp writes a string constant as a quoted JSON string literal.
            let literal = "\"\\\"\(placeholder)\\\"\""
            // Absent when llama.cpp did not use that part of the schema (an unused `$defs` entry).
            grammar = grammar.replacingOccurrences(of: literal, with: expression)
        }
        return grammar
    }

    /// Keywords whose values are data, not schemas.
    private static let dataKeywords: Set<String> = ["const", "enum", "default", "examples"]
    /// Keywords that llama.cpp's converter obeys before `type`: a node with one of them is not a plain number.
    private static let precedingKeywords: Set<String> = ["$ref", "oneOf", "anyOf", "allOf", "const", "enum"]
    /// Keywords whose value maps names to schemas.
    private static let schemaMaps: Set<String> = ["properties", "$defs", "definitions", "patternProperties"]
    /// The bound keywords of a number.
    private static let boundKeywords: Set<String> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]

    /// Replaces every plain `{"type": "number", …}` schema by a unique string constant, and
    /// records the GBNF expression that will stand in its place.
    private static func replacingNumbers(in schema: OrderedJSON, path: String, rules: inout [String: String]) throws -> OrderedJSON {
        switch schema {
        case .object(let members):
            let keys = Set(members.map(\.0))
            if case .array(let types)? = members.first(where: { $0.0 == "type" })?.1, types.contains(.string("number")),
               !keys.isDisjoint(with: boundKeywords) {
                throw LLMKitError.invalidSchema(property: path, reason: "number bounds with a list of types are not supported; use anyOf")
            }
            if members.contains(where: { $0.0 == "type" && $0.1 == .string("number") }), keys.isDisjoint(with: precedingKeywords) {
                func bound(_ key: String) -> Double? {
                    switch members.first(where: { $0.0 == key })?.1 {
                    case .integer(let value)?: return Double(value)
                    case .number(let value)?: return value
                    default: return nil
                    }
                }
                let step = 1 / pow(10, Double(NumberGrammar.fractionDigits))
                let minimum = [bound("minimum"), bound("exclusiveMinimum").map { $0 + step }].compactMap { $0 }.max()
                let maximum = [bound("maximum"), bound("exclusiveMaximum").map { $0 - step }].compactMap { $0 }.min()
                guard let expression = NumberGrammar.expression(minimum: minimum, maximum: maximum) else {
                    throw LLMKitError.invalidSchema(property: path, reason: "no number with at most \(NumberGrammar.fractionDigits) "
                        + "decimals within ±\(Int64(NumberGrammar.limit)) lies between the bounds")
                }
                let placeholder = "__llmkit_number_\(rules.count)__"
                rules[placeholder] = expression
                return .object([("const", .string(placeholder))])
            }
            return .object(try members.map { key, value in
                if dataKeywords.contains(key) { return (key, value) }
                if schemaMaps.contains(key), case .object(let entries) = value {       // names → schemas
                    return (key, .object(try entries.map { name, schema in
                        (name, try replacingNumbers(in: schema, path: path + "." + name, rules: &rules))
                    }))
                }
                return (key, try replacingNumbers(in: value, path: path + "." + key, rules: &rules))
            })
        case .array(let values):
            return .array(try values.map { try replacingNumbers(in: $0, path: path, rules: &rules) })
        default:
            return schema
        }
    }

    /// Checks that llama.cpp can parse a GBNF grammar.
    /// - Throws: ``LLMKitError/invalidGrammar(reason:)`` with llama.cpp's reason.
    static func check(_ grammar: String, model: ModelHandle) throws {
        var error: llmkit_error?
        let (parsed, errors) = LlamaLog.collectingErrors { llmkit_grammar_check(model.pointer, grammar, &error) }
        let message = Bridge.take(error)
        guard parsed else {
            throw LLMKitError.invalidGrammar(reason: message ?? errors.summary ?? "llama.cpp cannot parse it")
        }
    }
}
