import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Schemas that would overflow the stack, exhaust memory or hang llama.cpp's converter,
/// through the real library: each is an `invalidSchema` naming the bound, never a crash.
@Suite("Schema bounds")
struct SchemaBoundsTests {
    static func repeated(_ text: String, _ count: Int) -> String { String(repeating: text, count: count) }

    /// `count` definitions, each an object whose property refers to the next.
    static func referenceChain(_ count: Int) -> String {
        var definitions: [String] = [#""d\#(count)": {"type": "string"}"#]
        for index in 0..<count {
            definitions.append(##""d\##(index)": {"type": "object", "properties": {"x": {"$ref": "#/$defs/d\##(index + 1)"}}, "required": ["x"]}"##)
        }
        return ##"{"$ref": "#/$defs/d0", "$defs": {"## + definitions.joined(separator: ", ") + "}}"
    }

    /// Definitions each referring twice to the next: 2^count paths, one rule each.
    static func sharedChain(_ count: Int) -> String {
        var definitions: [String] = [#""d\#(count)": {"type": "integer"}"#]
        for index in 0..<count {
            let next = ##"{"$ref": "#/$defs/d\##(index + 1)"}"##
            definitions.append(#""d\#(index)": {"type": "object", "properties": {"a": \#(next), "b": \#(next)}, "required": ["a", "b"]}"#)
        }
        return ##"{"$ref": "#/$defs/d0", "$defs": {"## + definitions.joined(separator: ", ") + "}}"
    }

    /// Each level merges two parts whose properties hold inline `allOf`s of the next level: 2^levels parts.
    static func doublingAllOf(_ levels: Int) -> String {
        var definitions: [String] = [#""l\#(levels)": {"type": "object", "properties": {"end": {"type": "string"}}}"#,
                                     #""r\#(levels)": {"type": "object", "properties": {"stop": {"type": "string"}}}"#]
        for index in 0..<levels {
            let next = ##"{"allOf": [{"$ref": "#/$defs/l\##(index + 1)"}, {"$ref": "#/$defs/r\##(index + 1)"}]}"##
            definitions.append(#""l\#(index)": {"type": "object", "properties": {"l": \#(next)}}"#)
            definitions.append(#""r\#(index)": {"type": "object", "properties": {"r": \#(next)}}"#)
        }
        return ##"{"allOf": [{"$ref": "#/$defs/l0"}, {"$ref": "#/$defs/r0"}], "$defs": {"## + definitions.joined(separator: ", ") + "}}"
    }

    static func object(properties count: Int, required: Bool) -> String {
        let names = (0..<count).map { "\"p\($0)\"" }
        let properties = names.map { "\($0): {\"type\": \"string\"}" }.joined(separator: ", ")
        return "{\"type\": \"object\", \"properties\": {\(properties)}, \"required\": [\(required ? names.joined(separator: ", ") : "")]}"
    }

    static func enumeration(_ count: Int) -> String {
        "{\"enum\": [" + (0..<count).map { "\"v\($0)\"" }.joined(separator: ", ") + "]}"
    }

    static let nestedArrays: String = repeated("[", 100_000) + repeated("]", 100_000)
    static let nestedItems: String = repeated(#"{"items": "#, 20_000) + "{}" + repeated("}", 20_000)
    static let repeatedTypes: String = repeated(#"{"type": ["object", "object"], "properties": {"a": "#, 30) + "{}" + repeated("}}", 30)
    static let deepPattern: String = #"{"type": "string", "pattern": "^"# + repeated("(", 40) + "a" + repeated(")", 40) + #"$"}"#
    static let longPattern: String = #"{"type": "string", "pattern": ""# + repeated("a", 5_000) + #""}"#
    static let hugeDocument: String = #"{"type": "string", "description": ""# + repeated("x", 2 << 20) + #""}"#
    static let manyParts: String = #"{"anyOf": ["# + Array(repeating: object(properties: 1_000, required: true), count: 21)
        .joined(separator: ", ") + "]}"

    /// A schema, and a fragment of the reason it must be refused with.
    static let adversarial: [(name: String, schema: String, reason: String)] = [
        ("100,000 nested arrays", nestedArrays, "nested deeper than 256"),
        ("items nested 20,000 deep", nestedItems, "nested deeper than 256"),
        ("a chain of 200 $refs", referenceChain(200), "nested deeper than 64 levels (references included)"),
        ("allOf parts that double 20 times", doublingAllOf(20), "more than 20000 parts"),
        ("an allOf whose references loop",
         ##"{"allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}"##, "never reach a schema"),
        ("an allOf that contains itself",
         ##"{"$ref": "#/$defs/a", "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}, {"type": "object"}]}}}"##, "nested deeper than 64"),
        ("a type list that repeats a type (llama.cpp copies the schema per entry)", repeatedTypes, "twice"),
        ("an enum of 2,001 values", enumeration(2_001), "at most 2000"),
        ("maxItems 10^9", #"{"type": "array", "maxItems": 1000000000}"#, "exceeds 2000"),
        ("minItems 10^9", #"{"type": "array", "items": {"type": "integer"}, "minItems": 1000000000}"#, "exceeds 2000"),
        ("maxItems 2^32 (llama.cpp reads it as 0)", #"{"type": "array", "maxItems": 4294967296}"#, "exceeds 2000"),
        ("maxLength 10^9", #"{"type": "string", "maxLength": 1000000000}"#, "exceeds 1000000"),
        ("a pattern count above 2,000", #"{"type": "string", "pattern": "^a{5000}$"}"#, "5000 exceeds 2000"),
        ("a pattern with 40 nested groups", deepPattern, "nested deeper than 32"),
        ("a pattern of 5,000 characters", longPattern, "longer than 4096"),
        ("an integer bound of 10^30", #"{"type": "integer", "minimum": 1e30}"#, "within ±9007199254740991"),
        ("1,001 properties", object(properties: 1_001, required: true), "at most 1000 properties"),
        ("101 optional properties (cubic time in llama.cpp)", object(properties: 101, required: false), "at most 100 optional"),
        ("a document of 2 MiB", hugeDocument, "bytes long"),
        ("21 objects of 1,000 properties", manyParts, "more than 20000 parts"),
    ]

    @Test("Hardening #11: adversarial schemas are invalidSchema naming the bound, before anything recursive runs",
          arguments: 0..<adversarial.count)
    func adversarialSchema(_ index: Int) async throws {
        let (name, schema, expected) = Self.adversarial[index]
        let model = try await TestModel.grammarVocabulary()
        do {
            _ = try OutputFormat.jsonSchema(schema).grammar(for: model.handle)
            Issue.record("\(name) was accepted")
        } catch OutputFormat.Error.invalidSchema(_, let reason) {
            #expect(reason.contains(expected), "\(name): \(reason)")
        }
    }

    @Test("Hardening #11: generation with an adversarial schema fails before the first token; the model keeps working")
    func generation() async throws {
        let model = try await TestModel.load()
        for (name, schema, _) in Self.adversarial.prefix(6) {
            await #expect(throws: OutputFormat.Error.self, "\(name)") {
                _ = try await model.complete("x", format: .jsonSchema(schema), options: .init(maximumResponseTokens: 4))
            }
        }
        let after = try await model.complete("A number:", format: .jsonSchema(#"{"type": "integer", "minimum": 0, "maximum": 9}"#), options: .init(maximumResponseTokens: 8, sampling: .greedy))
        #expect(Int(after.text).map { (0...9).contains($0) } == true, "\(after.text)")
    }

    @Test("Hardening #11: a kind nested 100,000 deep is an error, in jsonSchema, the grammar and the prompt description")
    func deepKind() async throws {
        let model = try await TestModel.grammarVocabulary()
        let handle = UnsafeSendableBox(model.handle)
        // Building and tearing down 100,000 levels recurses in Swift's runtime: use a large stack.
        let outcome: (thrown: OutputFormat.Error?, description: String, grammarThrew: Bool) = await withCheckedContinuation { continuation in
            let thread = Thread {
                var kind = OutputSchema.Kind.string
                for _ in 0..<100_000 { kind = .list(kind) }
                let schema = OutputSchema("Deep", kind: kind)
                var thrown: OutputFormat.Error?
                do { _ = try schema.jsonSchema() } catch { thrown = error as? OutputFormat.Error }
                let grammarThrew = (try? OutputFormat.schema(schema).grammar(for: handle.value)) == nil
                continuation.resume(returning: (thrown, schema.promptDescription, grammarThrew))
            }
            thread.stackSize = 256 << 20
            thread.start()
        }
        #expect(outcome.thrown == .invalidSchema(property: "Deep" + String(repeating: "[]", count: 65),
                                                 reason: "kinds are nested deeper than 64 levels"))
        #expect(outcome.description.contains("…"))
        #expect(outcome.grammarThrew)
        var kind = OutputSchema.Kind.string
        for _ in 0..<1_000 { kind = .dictionary(kind) }
        let generating = try await TestModel.load()
        await #expect(throws: OutputFormat.Error.self) {
            _ = try await generating.complete("x", format: .schema(OutputSchema("Deep", kind: kind)), options: .init(maximumResponseTokens: 4))
        }
    }

    /// A type whose `init(from:)` nests unkeyed containers 100,000 levels deep.
    struct Nested: Decodable {
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            for _ in 0..<100_000 { container = try container.nestedUnkeyedContainer() }
        }
    }

    @Test("Hardening #11: Decodable derivation bounds container nesting")
    func deepDerivation() {
        #expect {
            _ = try OutputSchema(deriving: Nested.self)
        } throws: { error in
            guard case OutputFormat.Error.invalidSchema(_, let reason) = error else { return false }
            return reason.contains("nests containers deeper than 64")
        }
    }

    @Test("Hardening #11: schemas at the bounds are accepted, and a shared $defs graph stays linear")
    func generousBounds() async throws {
        let model = try await TestModel.grammarVocabulary()
        let accepted: [String] = [
            Self.referenceChain(31),
            Self.sharedChain(31),
            Self.enumeration(2_000),
            #"{"type": "array", "items": {"type": "integer"}, "minItems": 2000, "maxItems": 2000}"#,
            #"{"type": "string", "minLength": 3000, "maxLength": 1000000}"#,
            Self.object(properties: 1_000, required: true),
            Self.object(properties: 100, required: false),
            // Repetitions in patterns become shared rules: 4,000,000 characters, a few thousand elements.
            #"{"type": "string", "pattern": "^(a{2000}){2000}$"}"#,
            // 100 strings of up to 2,000 characters.
            "{\"type\": \"object\", \"properties\": {" + (0..<100).map { "\"s\($0)\": {\"type\": \"string\", \"maxLength\": 2000}" }
                .joined(separator: ", ") + "}, \"required\": [" + (0..<100).map { "\"s\($0)\"" }.joined(separator: ", ") + "]}",
        ]
        for schema in accepted {
            #expect(throws: Never.self, "\(schema.prefix(120))") { _ = try OutputFormat.jsonSchema(schema).grammar(for: model.handle) }
        }
    }

    @Test("Hardening #11: tool parameter schemas get the same bounds before llama.cpp builds a tool-call grammar from them")
    func toolSchemas() throws {
        for index in [2, 4, 8] {
            let (_, schema, expected) = Self.adversarial[index]
            #expect {
                try ToolBox([DynamicTool(name: "tool", description: "", parametersSchema: schema) { _ in "" }])
            } throws: { error in
                guard case Conversation.Error.invalidTool(let tool, let reason) = error else { return false }
                return tool == "tool" && reason.contains(expected)
            }
        }
        #expect(throws: Never.self) {
            try ToolBox([DynamicTool(name: "weather", description: "", parametersSchema:
                #"{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}"#) { _ in "" }])
        }
    }

    @Test("Hardening #11: string lengths beyond llama.cpp's 2,000 are exact, through blocks")
    func longStrings() async throws {
        // The block arithmetic, with blocks of 5 characters, sampled by the real model.
        var rules: [String: String] = [:]
        let cases: [(Int, Int?)] = [(7, 23), (12, 14), (6, nil)]
        let model = try await TestModel.load()
        for (minimum, maximum) in cases {
            rules = [:]
            let expression = LengthGrammar.string(minimum: minimum, maximum: maximum, prefix: "t", rules: &rules, block: 5)
            let grammar = "root ::= " + expression + "\n" + rules.map { "\($0.key) ::= \($0.value)\n" }.joined()
            for seed in 1...3 {
                let result = try await model.complete("A word: ", format: .grammar(grammar), options: .init(maximumResponseTokens: 30, sampling: .init(temperature: 1.2, seed: UInt32(seed))))
                guard result.stopReason == .endOfText else { continue }
                let value = try #require(try JSONSerialization.jsonObject(with: Data(result.text.utf8), options: .fragmentsAllowed) as? String)
                #expect(value.count >= minimum && value.count <= (maximum ?? .max), "\(minimum)...\(String(describing: maximum)): \(result.text)")
            }
        }
    }
}

/// Carries a value to another thread (for tearing down a deep value on a large stack).
final class UnsafeSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
