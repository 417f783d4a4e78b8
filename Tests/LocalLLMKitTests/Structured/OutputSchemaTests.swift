import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

enum Action: String, Decodable, CaseIterable, Sendable { case none, pay, reply }

struct Letter: Decodable, StructuredOutput, Sendable {
    var sender: String
    var action: Action
    var urgency: Int
    var deadline: Date?
    var steps: [String]

    static let outputHints: [String: OutputSchema.Hint] = [
        "sender": .init("Who sent the letter", kind: .string(maximumLength: 40)),
        "urgency": .init("0 only information, 3 deadline soon", kind: .integer(0...3)),
        "deadline": .init("Only if the letter names one", kind: .date),
        "steps": .init(kind: .list(.string(maximumLength: 40), maximumCount: 4)),
    ]
}

@Suite("Output schemas")
struct OutputSchemaTests {
    static let letter = OutputSchema("Letter") {
        OutputSchema.Property("sender", .string, "Who sent the letter")
        OutputSchema.Property("action", .choice(["none", "pay", "reply"]))
        OutputSchema.Property("urgency", .integer(0...3), "0 only information, 3 deadline soon")
        OutputSchema.Property("deadline", .date, "Only if the letter names one", optional: true)
        OutputSchema.Property("steps", .list(.string, maximumCount: 4))
    }

    @Test("the DSL compiles to a JSON Schema with properties in writing order")
    func jsonSchema() throws {
        let document = try Self.letter.jsonSchema()
        #expect(document == #"{"type":"object","properties":{"sender":{"type":"string","description":"Who sent the letter"},"action":{"type":"string","enum":["none","pay","reply"]},"urgency":{"type":"integer","minimum":0,"maximum":3,"description":"0 only information, 3 deadline soon"},"deadline":{"type":"string","format":"date","description":"Only if the letter names one"},"steps":{"type":"array","items":{"type":"string"},"maxItems":4}},"required":["sender","action","urgency","steps"],"additionalProperties":false}"#)
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        #expect(keys["additionalProperties"] as? Bool == false)
    }

    @Test("the DSL compiles to a plain-text description and to a grammar llama.cpp accepts")
    func descriptionAndGrammar() async throws {
        let description = Self.letter.promptDescription
        #expect(description.contains("- urgency (integer from 0 to 3): 0 only information, 3 deadline soon"))
        #expect(description.contains("- deadline (date, YYYY-MM-DD, optional)"))
        #expect(description.contains("- action (one of \"none\", \"pay\", \"reply\")"))
        let model = try await TestModel.grammarVocabulary()
        let grammar = try #require(try OutputFormat.schema(Self.letter).grammar(for: model.handle))
        #expect(grammar.contains("root ::="))
    }

    @Test("a Decodable type derives the same schema, hints included")
    func derivation() throws {
        let derived = try OutputSchema(deriving: Letter.self)
        guard case .object(let properties) = derived.kind else {
            Issue.record("not an object")
            return
        }
        #expect(properties.map(\.name) == ["sender", "action", "urgency", "deadline", "steps"])
        #expect(properties[1].kind == .choice(["none", "pay", "reply"]))
        #expect(properties[2].kind == .integer(0...3))
        #expect(properties[2].description == "0 only information, 3 deadline soon")
        #expect(properties[3].isOptional && properties[3].kind == .date)
        #expect(!properties[4].isOptional)
    }

    struct Everything: Decodable {
        struct Inner: Decodable { var note: String; var flags: [Bool] }
        var text: String
        var whole: Int
        var small: UInt8
        var real: Double
        var single: Float
        var flag: Bool
        var when: Date
        var link: URL
        var id: UUID
        var inner: Inner
        var inners: [Inner]
        var table: [String: Int]
        var maybe: String?
        var grid: [[Int]]
    }

    @Test("every supported field kind derives")
    func allKinds() throws {
        let schema = try OutputSchema(deriving: Everything.self)
        guard case .object(let properties) = schema.kind else {
            Issue.record("not an object")
            return
        }
        let kinds = Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0.kind) })
        #expect(kinds["text"] == .string)
        #expect(kinds["whole"] == .integer)
        #expect(kinds["small"] == .integer(0...255))
        #expect(kinds["real"] == .number && kinds["single"] == .number)
        #expect(kinds["flag"] == .boolean)
        #expect(kinds["when"] == .dateTime)
        #expect(kinds["link"] == .string)
        if case .text(_, _, let pattern?) = kinds["id"] { #expect(pattern.hasPrefix("^[0-9a-fA-F]{8}")) } else { Issue.record("id") }
        #expect(kinds["inner"] == .object([.init("note", .string), .init("flags", .list(.boolean))]))
        #expect(kinds["inners"] == .list(.object([.init("note", .string), .init("flags", .list(.boolean))])))
        #expect(kinds["table"] == .dictionary(.integer))
        #expect(kinds["grid"] == .list(.list(.integer)))
        #expect(properties.first { $0.name == "maybe" }?.isOptional == true)
        _ = try schema.jsonSchema()
    }

    struct Node: Decodable { var value: Int; var children: [Node] }
    final class Chain: Decodable { var next: Chain? }
    struct IntKeys: Decodable { var table: [Int: String] }
    enum Shape: Decodable { case circle(radius: Double), square(side: Double) }
    struct HasShape: Decodable { var shape: Shape }
    enum Empty: String, Decodable, CaseIterable { case _placeholder; static var allCases: [Empty] { [] } }
    struct HasEmpty: Decodable { var empty: Empty }

    @Test("types that cannot be derived give a clear error naming the property")
    func underivable() {
        func reason<T: Decodable>(_ type: T.Type) -> (String, String)? {
            do {
                _ = try OutputSchema(deriving: type)
                return nil
            } catch OutputFormat.Error.invalidSchema(let property, let reason) {
                return (property, reason)
            } catch {
                return ("?", "\(error)")
            }
        }
        #expect(reason(Node.self).map { $0.0 == "Node.children[]" && $0.1.contains("recursive") } == true)
        #expect(reason(Chain.self).map { $0.1.contains("recursive") } == true)
        #expect(reason(IntKeys.self).map { $0.0 == "IntKeys.table" && $0.1.contains("Int keys") } == true)
        #expect(reason(HasShape.self).map { $0.0 == "HasShape.shape" } == true)
        #expect(reason(HasEmpty.self).map { $0.0 == "HasEmpty.empty" && $0.1.contains("no cases") } == true)
    }

    @Test("contradictory or empty bounds are rejected, naming the property", arguments: [
        (OutputSchema.Kind.integer(minimum: 5, maximum: 1), "minimum 5 is above maximum 1"),
        (.number(minimum: 2, maximum: 1), "minimum 2.0 is above maximum 1.0"),
        (.string(minimumLength: 9, maximumLength: 3), "minimum length 9 is above maximum length 3"),
        (.string(pattern: "[a-z]+"), "must be anchored"),
        (.choice([]), "at least one option"),
        (.list(.string, minimumCount: 4, maximumCount: 2), "minimum count 4 is above maximum count 2"),
    ])
    func invalid(kind: OutputSchema.Kind, reason: String) {
        let schema = OutputSchema("Thing") {
            OutputSchema.Property("fine", .string)
            OutputSchema.Property("broken", kind)
        }
        #expect {
            try schema.jsonSchema()
        } throws: { error in
            guard case OutputFormat.Error.invalidSchema(let property, let message) = error else { return false }
            return property == "Thing.broken" && message.contains(reason)
        }
    }

    @Test("raw JSON Schemas: unsupported keywords and formats are named; bad grammars are typed errors")
    func rawInputs() async throws {
        let model = try await TestModel.grammarVocabulary()
        func failure(_ format: OutputFormat) -> OutputFormat.Error? {
            do {
                _ = try format.grammar(for: model.handle)
                return nil
            } catch {
                return error as? OutputFormat.Error
            }
        }
        #expect(failure(.jsonSchema(#"{"type":"object","properties":{"tags":{"type":"array","minContains":1}}}"#))
                == .invalidSchema(property: "schema.tags", reason: "the keyword \"minContains\" is not supported"))
        #expect(failure(.jsonSchema(#"{"type":"string","format":"ipv6"}"#))
                == .invalidSchema(property: "schema", reason: "the format \"ipv6\" is not supported"))
        #expect(failure(.jsonSchema(#"{"type":"object","properties":{"a":{"type":"wizard"}}}"#)) != nil)
        #expect(failure(.jsonSchema("{not json")) != nil)
        #expect(failure(.jsonSchema(#"{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}"#)) == nil)
        guard case .invalidGrammar(let reason)? = failure(.grammar("root ::= \"a\" missing")) else {
            Issue.record("an undefined rule was accepted")
            return
        }
        #expect(reason.contains("missing"))
        #expect(failure(.grammar("root ::= (\"a\"")) != nil)
        #expect(failure(.grammar("root ::= \"yes\" | \"no\"")) == nil)
    }

    @Test("the balanced-JSON scanner respects strings and escapes")
    func balancedScanner() {
        var scanner = BalancedJSONScanner()
        #expect(scanner.scan("Sure: } {\"a\": \"}\\\"{\", ") == nil)
        let text = "\"b\": [1, {\"c\": 2}]} trailing"
        let end = scanner.scan(text)
        #expect(end.map { String(text[..<$0]) } == "\"b\": [1, {\"c\": 2}]}")
        #expect(scanner.isComplete)
        var array = BalancedJSONScanner()
        #expect(array.scan("[[\"]\"]]").map { _ in true } == true)
    }
}
