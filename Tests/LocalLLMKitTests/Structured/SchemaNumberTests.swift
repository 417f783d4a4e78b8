import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Numbers in raw JSON Schemas: which nodes get bounded-number rules, and bad bounds.
@Suite("JSON Schema numbers")
struct SchemaNumberTests {
    static func grammar(_ schema: String) throws -> String {
        try Grammar.fromJSONSchema(OrderedJSONParser.parse(schema), name: "test").grammar
    }

    @Test("bounds beyond ±10^12 or infinite are a schema error, never a crash", arguments: [
        #"{"type": "number", "minimum": 1e13}"#,
        #"{"type": "number", "maximum": -1e13}"#,
        #"{"type": "number", "minimum": 1e999}"#,
        #"{"type": "number", "minimum": 5, "maximum": 1}"#,
    ])
    func impossibleBounds(_ schema: String) {
        #expect(throws: OutputFormat.Error.self) { try Self.grammar(schema) }
    }

    @Test("a wide range is clamped to ±10^12, not rejected")
    func wideRange() throws {
        #expect(NumberGrammar.expression(minimum: -1e15, maximum: 1e15) != nil)
        #expect(NumberGrammar.expression(minimum: 1e13, maximum: 1e14) == nil)
        #expect(throws: OutputFormat.Error.self) {
            try OutputSchema("Big") { OutputSchema.Property("value", .number(1e13...1e14)) }.validate()
        }
    }

    @Test("enum, const and anyOf numbers keep llama.cpp's meaning; data keywords are left alone")
    func onlyPlainNumbers() throws {
        let enumerated = try Self.grammar(#"{"type": "number", "enum": [1.5, 2.5]}"#)
        #expect(enumerated.contains("1.5") && enumerated.contains("2.5"))
        #expect(!enumerated.contains("__llmkit_number"))
        // An unused definition and a `default` value that looks like a schema are fine.
        let unused = try Self.grammar(#"""
        {"type": "object", "properties": {"a": {"type": "string", "default": {"type": "number"}}},
         "$defs": {"unused": {"type": "number", "minimum": 0}}, "required": ["a"]}
        """#)
        #expect(!unused.contains("__llmkit_number"))
        // A property called like a data keyword is still a schema.
        let named = try Self.grammar(#"""
        {"type": "object", "properties": {"default": {"type": "number", "minimum": 0, "maximum": 9}}, "required": ["default"]}
        """#)
        let expression = try #require(NumberGrammar.expression(minimum: 0, maximum: 9))
        #expect(!named.contains("__llmkit_number") && named.contains(expression))
    }

    @Test("bounds on a list of types apply to the number alternative")
    func typeList() throws {
        let grammar = try Self.grammar(#"{"type": ["number", "null"], "minimum": 0, "maximum": 9}"#)
        #expect(grammar.contains(try #require(NumberGrammar.expression(minimum: 0, maximum: 9))))
        #expect(throws: Never.self) { try Self.grammar(#"{"type": ["number", "null"]}"#) }
    }
}
