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
            guard grammar.contains(literal) else {
                throw LLMKitError.invalidSchema(property: name, reason: "internal: the number rule \(placeholder) was not placed")
            }
            grammar = grammar.replacingOccurrences(of: literal, with: expression)
        }
        return grammar
    }

    /// Replaces every `{"type": "number", …}` schema by a unique string constant, and
    /// records the GBNF expression that will stand in its place.
    private static func replacingNumbers(in schema: OrderedJSON, path: String, rules: inout [String: String]) throws -> OrderedJSON {
        switch schema {
        case .object(let members):
            if members.contains(where: { $0.0 == "type" && $0.1 == .string("number") }) {
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
                    throw LLMKitError.invalidSchema(property: path, reason: "no number lies between the bounds")
                }
                let placeholder = "__llmkit_number_\(rules.count)__"
                rules[placeholder] = expression
                return .object([("const", .string(placeholder))])
            }
            return .object(try members.map { key, value in
                (key, try replacingNumbers(in: value, path: key == "properties" || key == "$defs" ? path : path + "." + key, rules: &rules))
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
