import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Which JSON Schema keywords are enforced: every other keyword, and every combination
/// llama.cpp's converter would silently drop, is an `invalidSchema` naming it and its path.
@Suite("JSON Schema keywords")
struct SchemaKeywordTests {
    /// The error a raw schema gets, through the real grammar path; nil when it is accepted.
    static func failure(_ schema: String) async throws -> OutputFormat.Error? {
        let model = try await TestModel.grammarVocabulary()
        do {
            _ = try OutputFormat.jsonSchema(schema).grammar(for: model.handle)
            return nil
        } catch let error as OutputFormat.Error {
            return error
        }
    }

    static let unsupported: [(keyword: String, value: String)] = [
        ("not", #"{"type": "null"}"#), ("if", "{}"), ("then", "{}"), ("else", "{}"), ("multipleOf", "2"),
        ("minProperties", "1"), ("maxProperties", "3"), ("propertyNames", #"{"pattern": "^a"}"#), ("patternProperties", #"{"^a": {}}"#),
        ("dependentRequired", #"{"a": ["b"]}"#), ("dependentSchemas", #"{"a": {}}"#), ("dependencies", #"{"a": ["b"]}"#),
        ("unevaluatedProperties", "false"), ("unevaluatedItems", "false"), ("contains", "{}"), ("minContains", "1"),
        ("maxContains", "2"), ("additionalItems", "false"), ("$anchor", #""x""#), ("$dynamicRef", ##""#x""##),
        ("$dynamicAnchor", #""x""#), ("$vocabulary", "{}"), ("contentEncoding", #""base64""#),
        ("contentMediaType", #""text/plain""#), ("contentSchema", "{}"), ("nullable", "true"),
        ("discriminator", #"{"propertyName": "kind"}"#),
    ]

    @Test("Hardening #15: every keyword that is not enforced is rejected, naming it and its path", arguments: 0..<unsupported.count)
    func unsupportedKeyword(_ index: Int) async throws {
        let (keyword, value) = Self.unsupported[index]
        let schema = #"{"type": "object", "properties": {"field": {"\#(keyword)": \#(value)}}, "required": ["field"]}"#
        #expect(try await Self.failure(schema) == .invalidSchema(property: "schema.field", reason: "the keyword \"\(keyword)\" is not supported"))
    }

    /// Combinations llama.cpp would enforce only in part: a schema, the path and a fragment of the reason.
    static let unenforceable: [(schema: String, path: String, reason: String)] = [
        (##"{"$ref": "#/$defs/a", "maxLength": 3, "$defs": {"a": {"type": "string"}}}"##, "schema", #""maxLength" next to "$ref""#),
        (#"{"type": "string", "anyOf": [{"maxLength": 3}, {"minLength": 5}]}"#, "schema", #""type" next to "anyOf""#),
        (#"{"anyOf": [{"type": "string"}], "oneOf": [{"type": "null"}]}"#, "schema", "next to"),
        (#"{"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}"#, "schema", "oneOf alternatives 0 and 1 can match the same value"),
        (#"{"oneOf": [{"type": "integer"}, {"type": "number"}]}"#, "schema", "oneOf alternatives 0 and 1"),
        (#"{"enum": ["a", "bb"], "maxLength": 1}"#, "schema", #""maxLength" next to "enum""#),
        (#"{"const": "a", "enum": ["a"]}"#, "schema", "either const or enum"),
        (#"{"type": "string", "enum": ["a", 1]}"#, "schema", "is not of type string"),
        (#"{"type": "integer", "enum": [1, 2.5]}"#, "schema", "is not of type integer"),
        (#"{"type": "string", "format": "date", "pattern": "^2"}"#, "schema", "cannot be combined"),
        (#"{"type": "string", "format": "email", "maxLength": 40}"#, "schema", "cannot be combined"),
        (#"{"type": "string", "pattern": "^a+$", "maxLength": 4}"#, "schema", "cannot be combined"),
        (#"{"type": "string", "minimum": 1}"#, "schema", #""minimum" does not apply to type string"#),
        (#"{"type": ["string", "null"], "minItems": 1}"#, "schema", #""minItems" applies to none of the types"#),
        (#"{"minimum": 1, "minLength": 2}"#, "schema", "apply to different types"),
        (#"{"type": "object", "properties": {"a": {}}, "required": ["a", "b"]}"#, "schema", #""b" is not among the properties"#),
        (#"{"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#, "schema", "prefixItems followed by more items"),
        (#"{"type": "array", "items": [{"type": "string"}]}"#, "schema", "use prefixItems"),
        (#"{"type": "array", "prefixItems": [{}, {}], "maxItems": 1}"#, "schema", "must allow the 2 prefixItems"),
        (#"{"allOf": [{"type": "string"}, {"maxLength": 3}]}"#, "schema.allOf[0]", "allOf can only merge objects"),
        (#"{"allOf": [{"properties": {"a": {}}}, {"properties": {"a": {"type": "string"}}}]}"#, "schema", #""a" is defined by two allOf parts"#),
        (#"{"$ref": "https://example.com/schema.json"}"#, "schema", "is not supported"),
        (##"{"$ref": "#/$defs/missing"}"##, "schema", "points to no definition"),
        (#"{"type": "object", "properties": {"a": false}}"#, "schema.a", "allows no value"),
        (#"{"anyOf": [{"type": "array", "uniqueItems": true}, {"type": "array", "maxItems": 2}]}"#, "schema", "cannot be checked"),
        (#"{"type": "text"}"#, "schema", #"unknown type "text""#),
        (#"{"type": "string", "format": "ipv6"}"#, "schema", #"the format "ipv6" is not supported"#),
        (#"{"type": "string", "format": "duration"}"#, "schema", #"the format "duration" is not supported"#),
        (#"{"type": "string", "minLength": 5, "maxLength": 2}"#, "schema", "minLength 5 is above maxLength 2"),
        (#"{"type": "integer", "minimum": 3, "exclusiveMaximum": 4, "maximum": 2}"#, "schema", "no integer lies between"),
        (#"{"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true, "minItems": 3}"#, "schema", "above the 2 distinct values"),
    ]

    @Test("Hardening #15: combinations that llama.cpp would enforce only in part are rejected, naming the keyword",
          arguments: 0..<unenforceable.count)
    func unenforceableCombination(_ index: Int) async throws {
        let (schema, path, expected) = Self.unenforceable[index]
        let error = try await Self.failure(schema)
        guard case .invalidSchema(let property, let reason)? = error else {
            Issue.record("\(schema) gave \(String(describing: error))")
            return
        }
        #expect(property == path && reason.contains(expected), "\(schema): \(property): \(reason)")
    }

    static let unsupportedPatterns: [(pattern: String, reason: String)] = [
        ("(?=a)b", "lookahead"), ("(?<!a)b", "lookahead"), ("(a)\\1", "backreferences"), ("\\bword", "word boundaries"),
        ("\\p{L}+", "Unicode property"), ("a^b", "anchor inside"), ("a$b", "anchor inside"), ("(a|$)", "anchor inside"),
        ("[]", "matches nothing"), ("a{3,1}", "is empty"), ("a**", "nothing to repeat"), ("(a", "unbalanced"), ("a)", "unbalanced"),
        ("\\cJ", "control escapes"), ("\\q", "not supported"),
    ]

    @Test("Hardening #15: patterns the grammar cannot express are rejected, naming the construct", arguments: 0..<unsupportedPatterns.count)
    func unsupportedPattern(_ index: Int) async throws {
        let (pattern, expected) = Self.unsupportedPatterns[index]
        let schema = String(decoding: try JSONSerialization.data(withJSONObject: ["type": "string", "pattern": pattern]), as: UTF8.self)
        guard case .invalidSchema(let property, let reason)? = try await Self.failure(schema) else {
            Issue.record("\(pattern) was accepted")
            return
        }
        #expect(property == "schema" && reason.contains("pattern") && reason.contains(expected), "\(pattern): \(reason)")
    }

    @Test("Hardening #15: patterns keep JSON Schema's meaning in llama.cpp's dialect")
    func patternTranslation() throws {
        let any = #"[^\x0A\x0D\u2028-\u2029\x00-\x1F\x22\x5C]"#
        // Unanchored sides match anything (llama.cpp used to accept any string instead).
        #expect(try PatternTranslator.translate("[a-z]+") == "^(?:\(any))*(?:[a-z])+(?:\(any))*$")
        // Anchors belong to their alternative.
        #expect(try PatternTranslator.translate("^a|b$") == "^(?:a(?:\(any))*|(?:\(any))*b)$")
        // \d, quotes and backslashes are written as the JSON text has them; repeated atoms are grouped.
        #expect(try PatternTranslator.translate(#"^"q\\\d{2}$"#) == #"^\\\"q\\\\(?:[0-9]){2}$"#)
        #expect(try PatternTranslator.translate(#"^a\.{3}$"#) == #"^a(?:\.){3}$"#)
        // Negated classes leave out what JSON must escape; named groups are plain groups.
        #expect(try PatternTranslator.translate("^[^x]{2}$") == #"^(?:[^x\x00-\x1F\x22\x5C]){2}$"#)
        #expect(try PatternTranslator.translate("^x(?<n>y)$") == "^x(?:y)$")
    }

    @Test("Hardening #15: a pattern llama.cpp's converter would drop (accepting any string) is an error")
    func converterWarning() {
        // Untranslated, an unanchored pattern makes llama.cpp accept any string (and warn on stderr).
        #expect {
            try Grammar.checkPattern("[a-z]+", original: "[a-z]+", path: "schema.name")
        } throws: { error in
            guard case OutputFormat.Error.invalidSchema(let property, let reason) = error else { return false }
            return property == "schema.name" && reason.contains("cannot express it as a grammar")
        }
    }

    @Test("Hardening #15: minimum and exclusiveMinimum together both hold (llama.cpp keeps only one)")
    func bothBounds() throws {
        let grammar = try Grammar.fromJSONSchema(OrderedJSONParser.parse(
            #"{"type": "integer", "minimum": 1, "exclusiveMinimum": 3, "maximum": 9, "exclusiveMaximum": 7}"#), name: "n").grammar
        #expect(grammar.contains(#"root ::= ([4-6])"#), "\(grammar)")
    }
}
