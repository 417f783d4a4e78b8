import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Structured generation through the real model")
struct StructuredGenerationTests {
    /// Schemas of every kind; strings and lists are bounded so that every answer ends.
    static let schemas: [(name: String, prompt: String, schema: OutputSchema)] = [
        ("flat", "A person:", OutputSchema("Person") {
            OutputSchema.Property("name", .string(maximumLength: 30))
            OutputSchema.Property("age", .integer)
            OutputSchema.Property("member", .boolean)
        }),
        ("nested", "An order:", OutputSchema("Order") {
            OutputSchema.Property("id", .string(maximumLength: 12))
            OutputSchema.Property("customer", .object([
                .init("name", .string(maximumLength: 30)),
                .init("city", .string(maximumLength: 30)),
            ]))
        }),
        ("lists", "A shopping list:", OutputSchema("List") {
            OutputSchema.Property("items", .list(.string(minimumLength: 1, maximumLength: 20), minimumCount: 2, maximumCount: 4))
            OutputSchema.Property("counts", .list(.integer(1...9), maximumCount: 3))
        }),
        ("choices", "A ticket:", OutputSchema("Ticket") {
            OutputSchema.Property("priority", .choice(["low", "medium", "high"]))
            OutputSchema.Property("team", .choice(["web", "mobile", "data", "infrastructure"]))
        }),
        ("numbers", "A measurement:", OutputSchema("Measurement") {
            OutputSchema.Property("celsius", .number(-40...60))
            OutputSchema.Property("floor", .integer(-2...30))
            OutputSchema.Property("ratio", .number(0...1))
        }),
        ("optionals", "A contact:", OutputSchema("Contact") {
            OutputSchema.Property("name", .string(maximumLength: 30))
            OutputSchema.Property("phone", .string(maximumLength: 15), optional: true)
            OutputSchema.Property("email", .string(maximumLength: 30), optional: true)
        }),
        ("dates", "An appointment:", OutputSchema("Appointment") {
            OutputSchema.Property("day", .date)
            OutputSchema.Property("starts", .dateTime)
            OutputSchema.Property("title", .string(maximumLength: 30))
        }),
    ]

    /// The seeds of the property test: 20 at full size (`make soak`), 8 otherwise.
    static let seeds = ReferenceModel.fullSize ? 1...20 : 1...8

    @Test("for every schema and 8 seeds (20 in make soak) at temperature 1, the output validates with an independent validator")
    func propertyTest() async throws {
        let model = try await TestModel.load()
        var lines: [String] = []
        for (name, prompt, schema) in Self.schemas {
            let document = try schema.jsonSchema()
            for seed in Self.seeds {
                let result = try await model.complete(
                    prompt, format: .schema(schema), options: .init(maximumResponseTokens: 256, sampling: .init(temperature: 1.0, seed: UInt32(seed))))
                #expect(result.stopReason == .endOfText, "\(name), seed \(seed): \(result.stopReason) \(result.text)")
                let line: [String: Any] = [
                    "schema": try JSONSerialization.jsonObject(with: Data(document.utf8)), "instance": result.text,
                ]
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self))
            }
        }
        let output = try Validator.run(lines.joined(separator: "\n"))
        #expect(output.status == 0, "jsonschema rejected outputs:\n\(output.text)")
    }

    @Test("a Decodable type round-trips through the model, every field kind included")
    func decodableRoundTrip() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model)
        let letter = try await conversation.respond(
            to: "Dear customer, your electricity bill of 45 EUR is due on 2026-12-15. Regards, PowerCo.",
            generating: Letter.self, options: .init(maximumResponseTokens: 200, sampling: .greedy))
        #expect((0...3).contains(letter.content.urgency))
        #expect(letter.content.steps.count <= 4)
        #expect(letter.content.sender.count <= 40)
        #expect(letter.stopReason == .endOfText)
        let reparsed = try JSONSerialization.jsonObject(with: Data(letter.text.utf8)) as? [String: Any]
        #expect(reparsed?["action"] as? String == letter.content.action.rawValue)

        struct Profile: Decodable, StructuredOutput {
            struct Address: Decodable { var street: String; var city: String }
            var name: String
            var age: Int
            var height: Double
            var active: Bool
            var born: Date
            var joined: Date
            var role: Action
            var address: Address
            var tags: [String]
            var scores: [String: Int]
            var nickname: String?
            var id: UUID

            static let outputHints: [String: OutputSchema.Hint] = [
                "name": .init(kind: .string(maximumLength: 20)),
                "age": .init(kind: .integer(0...120)),
                "height": .init(kind: .number(0.5...2.5)),
                "born": .init("Birthday", kind: .date),
                "tags": .init(kind: .list(.string(maximumLength: 12), maximumCount: 3)),
                "scores": .init(kind: .dictionary(.integer(0...100))),
                "nickname": .init(kind: .string(maximumLength: 12)),
            ]
        }
        let profile = try await model.complete("A user profile in JSON:\n", generating: Profile.self,
                                               options: .init(maximumResponseTokens: 400, sampling: .greedy))
        #expect((0...120).contains(profile.content.age))
        #expect((0.5...2.5).contains(profile.content.height))
        #expect(profile.content.tags.count <= 3)
        #expect(profile.content.scores.values.allSatisfy { (0...100).contains($0) })
        #expect(profile.text.contains(profile.content.id.uuidString.lowercased()) || profile.text.contains(profile.content.id.uuidString))
    }

    @Test("a token limit inside the JSON is reported as such, never as invalid JSON")
    func truncated() async throws {
        let model = try await TestModel.load()
        await #expect {
            _ = try await model.complete("A letter:", generating: Letter.self, options: .init(maximumResponseTokens: 5, sampling: .greedy))
        } throws: { error in
            guard case OutputFormat.Error.incompleteOutput(_, let stopReason) = error else { return false }
            return stopReason == .maximumTokens
        }
    }

    @Test("without a grammar, output that does not decode is invalidOutput")
    func invalidOutput() {
        #expect {
            _ = try StructuredDecoding.decode(Letter.self, from: #"{"sender": 5}"#, stopReason: .endOfText)
        } throws: { error in
            guard case OutputFormat.Error.invalidOutput(let raw, _) = error else { return false }
            return raw == #"{"sender": 5}"#
        }
        #expect(StructuredDecoding.parseDate("2026-12-15") != nil)
        #expect(StructuredDecoding.parseDate("2026-12-15T09:30:00Z") != nil)
        #expect(StructuredDecoding.parseDate("2026-12-15T09:30:00.250+02:00") != nil)
        #expect(StructuredDecoding.parseDate("next week") == nil)
    }

    @Test("stopsAtBalancedJSON ends at the first complete object, without a grammar")
    func balancedJSON() async throws {
        let model = try await TestModel.load()
        let result = try await model.complete(#"{"a": 1, "b": "x"}\#n{"a": 2, "b": "y"}\#n"#,
                                              options: .init(maximumResponseTokens: 60, sampling: .greedy, stopsAtBalancedJSON: true))
        #expect(result.stopReason == .endOfText)
        #expect(result.text.hasSuffix("}"))
        #expect((try? JSONSerialization.jsonObject(with: Data(result.text.utf8))) != nil, "\(result.text)")
    }

    @Test("a raw GBNF grammar constrains a completion")
    func grammar() async throws {
        let model = try await TestModel.load()
        for seed in 1...5 {
            let result = try await model.complete("Is the sky blue? Answer:", format: .grammar(##"root ::= " " ("yes" | "no") ".""##), options: .init(maximumResponseTokens: 8, sampling: .init(temperature: 1.0, seed: UInt32(seed))))
            #expect([" yes.", " no."].contains(result.text), "\(result.text)")
            #expect(result.stopReason == .endOfText)
        }
    }

    @Test("a grammar that cannot be completed is a typed error, not a crash")
    func impossibleGrammar() async throws {
        let model = try await TestModel.load()
        // After "a" the grammar can only end, and every end-of-generation token is banned
        // (Gemma 3 has three: <eos>, <end_of_turn> and 212).
        let endTokens = (0..<Int32(model.tokenizer.vocabularySize)).filter { model.tokenizer.isEndOfGeneration($0) }
        #expect(endTokens.count >= 2)
        let banned = Dictionary(uniqueKeysWithValues: endTokens.map { ($0, -Double.infinity) })
        await #expect {
            _ = try await model.complete("x", format: .grammar(##"root ::= "a""##), options: .init(maximumResponseTokens: 4, sampling: .init(logitBias: banned)))
        } throws: { error in
            guard case LocalModel.Error.samplingFailed(let reason) = error else { return false }
            return reason.contains("grammar")
        }
        #expect(try await model.complete("Hi", options: .greedy(maximumResponseTokens: 2)).tokens.count == 2)
    }
}

/// Runs scripts/validate-json (Python's jsonschema, installed by scripts/bootstrap).
enum Validator {
    static func run(_ input: String) throws -> (status: Int32, text: String) {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = [ProcessInfo.processInfo.environment["PYTHON"] ?? "python3",
                             root.appending(path: "scripts/validate-json").path]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
