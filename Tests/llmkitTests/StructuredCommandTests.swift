import Foundation
import Testing

@Suite("llmkit run --schema and --grammar")
struct StructuredCommandTests {
    static let schema = #"{"type": "object", "properties": {"answer": {"type": "string", "maxLength": 20}, "confidence": {"type": "number", "minimum": 0, "maximum": 1}}, "required": ["answer", "confidence"], "additionalProperties": false}"#

    @Test("--schema prints only JSON that follows the schema")
    func schema() throws {
        let folder = try ScratchFolder()
        try Self.schema.write(toFile: folder.path("schema.json"), atomically: true, encoding: .utf8)
        for flags in [["--raw"], []] {
            let output = try CommandRunner.llmkit(["run", "--schema", folder.path("schema.json"), "--temperature", "1", "--seed", "3",
                                                   "-n", "80"] + flags + ["Is water wet?"])
            #expect(output.status == 0, "\(output.stderr)")
            let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)")
            #expect((object["answer"] as? String)?.count ?? 99 <= 20)
            let confidence = try #require(object["confidence"] as? Double)
            #expect((0...1).contains(confidence))
        }
        let json = try CommandRunner.llmkit(["run", "--schema", folder.path("schema.json"), "--json", "-n", "80", "--temperature", "0", "Is water wet?"])
        let report = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let text = try #require(report["text"] as? String)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any])
        #expect(report["stop_reason"] as? String == "end_of_text")
    }

    @Test("--grammar prints only text the grammar allows")
    func grammar() throws {
        let folder = try ScratchFolder()
        try "root ::= (\"yes\" | \"no\")\n".write(toFile: folder.path("g.gbnf"), atomically: true, encoding: .utf8)
        let output = try CommandRunner.llmkit(["run", "--raw", "--grammar", folder.path("g.gbnf"), "-n", "4", "Is the sky blue? Answer: "])
        #expect(output.status == 0)
        #expect(["yes", "no"].contains(output.stdout))
    }

    @Test("bad schemas and grammars exit 1 naming what is wrong; both flags together is a usage error")
    func badInput() throws {
        let folder = try ScratchFolder()
        try #"{"type": "object", "properties": {"tags": {"type": "array", "minContains": 1}}}"#
            .write(toFile: folder.path("unsupported.json"), atomically: true, encoding: .utf8)
        try "root ::= \"a\" nowhere\n".write(toFile: folder.path("bad.gbnf"), atomically: true, encoding: .utf8)
        let unsupported = try CommandRunner.llmkit(["run", "--raw", "--schema", folder.path("unsupported.json"), "x"])
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr.contains("minContains"))
        let bad = try CommandRunner.llmkit(["run", "--raw", "--grammar", folder.path("bad.gbnf"), "x"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("nowhere"))
        #expect(bad.stderr.split(separator: "\n").count == 1)
        let missing = try CommandRunner.llmkit(["run", "--schema", folder.path("none.json"), "x"])
        #expect(missing.status == 1 && missing.stderr.contains(folder.path("none.json")))
        let both = try CommandRunner.llmkit(["run", "--schema", "a", "--grammar", "b", "x"])
        #expect(both.status == 2)
    }

    @Test("bench --schema compares constrained with unconstrained speed")
    func bench() throws {
        let folder = try ScratchFolder()
        try Self.schema.write(toFile: folder.path("schema.json"), atomically: true, encoding: .utf8)
        let output = try CommandRunner.llmkit(["bench", "--schema", folder.path("schema.json"), "-r", "1", "--max-tokens", "24", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["mode"] as? String } == ["unconstrained", "constrained", "constrained-stepwise"])
        #expect(rows.allSatisfy { ($0["tokens_per_second"] as? Double ?? 0) > 0 })
        // Every generated token was either forced by a grammar draft or sampled; one token a step forces none.
        #expect(rows.allSatisfy { ($0["forced_tokens"] as? Int ?? -1) + ($0["sampled_tokens"] as? Int ?? -1) == $0["generated_tokens"] as? Int })
        #expect(rows[0]["forced_tokens"] as? Int == 0 && rows[2]["forced_tokens"] as? Int == 0)
    }

    @Test("run --schema with --fixed-draft checks every grammar draft, and reports the forced tokens")
    func grammarDrafts() throws {
        let folder = try ScratchFolder()
        let schema = #"{"type": "object", "properties": {"customer_account_identifier": {"type": "integer", "minimum": 0, "maximum": 999}, "requires_signature_on_delivery_confirmation": {"type": "boolean"}}, "required": ["customer_account_identifier", "requires_signature_on_delivery_confirmation"], "additionalProperties": false}"#
        try schema.write(toFile: folder.path("order.json"), atomically: true, encoding: .utf8)
        let output = try CommandRunner.llmkit(["run", "--schema", folder.path("order.json"), "--fixed-draft", "--temperature", "0",
                                               "-n", "80", "--json", "An order as JSON."])
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let drafted = object["grammar_drafted_tokens"] as? Int ?? 0, forced = object["forced_tokens"] as? Int ?? -1
        #expect(forced > 0 && forced <= drafted, "\(output.stdout)")
        #expect((object["generated_tokens"] as? Int ?? 0) > forced)
        let stats = try CommandRunner.llmkit(["run", "--schema", folder.path("order.json"), "--fixed-draft", "--temperature", "0",
                                              "-n", "80", "--stats", "An order as JSON."])
        #expect(stats.stderr.contains("grammar drafts: \(forced) of \(drafted) tokens forced"), "\(stats.stderr)")
    }

    /// Inputs that crashed, hung or exhausted memory in llama.cpp, and what the error must name.
    static let adversarial: [(flag: String, file: String, text: String, reason: String)] = [
        ("--schema", "arrays.json", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
         "nested deeper than 256"),
        ("--schema", "chain.json", ##"{"$ref": "#/$defs/d0", "$defs": {"## + (0..<200).map {
            ##""d\##($0)": {"type": "object", "properties": {"x": {"$ref": "#/$defs/d\##($0 + 1)"}}}, "##
        }.joined() + ##""d200": {"type": "string"}}}"##, "nested deeper than 64"),
        ("--schema", "cycle.json", ##"{"allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}"##,
         "never reach a schema"),
        ("--schema", "items.json", #"{"type": "array", "items": {"type": "integer"}, "maxItems": 1000000000}"#, "exceeds 2000"),
        ("--schema", "types.json", String(repeating: #"{"type": ["object", "object"], "properties": {"a": "#, count: 30) + "{}"
            + String(repeating: "}}", count: 30), "twice"),
        ("--grammar", "parens.gbnf", "root ::= " + String(repeating: "(", count: 50_000) + "\"a\"" + String(repeating: ")", count: 50_000),
         "nested deeper than 128"),
        ("--grammar", "million.gbnf", #"root ::= "a"{1000000}"#, "exceeds 2000"),
        ("--grammar", "chain.gbnf", (0..<5_000).map { "r\($0) ::= r\($0 + 1) \"x\"\n" }.joined() + "r5000 ::= \"a\"\nroot ::= r0\n",
         "start one with the other"),
        ("--grammar", "doubling.gbnf", "root ::= r0\n" + (0..<40).map { "r\($0) ::= r\($0 + 1) \"a\" | r\($0 + 1) \"b\"\n" }.joined()
            + "r40 ::= \"c\"\n", "left-recursion check"),
    ]

    @Test("Hardening #11: adversarial schemas and grammars exit 1 with one line naming the bound; the process never dies")
    func adversarialInputs() throws {
        let folder = try ScratchFolder()
        for (flag, file, text, reason) in Self.adversarial {
            try text.write(toFile: folder.path(file), atomically: true, encoding: .utf8)
            let output = try CommandRunner.llmkit(["run", "--raw", flag, folder.path(file), "-n", "4", "x"])
            #expect(output.exitedNormally && output.status == 1, "\(file): \(output.status) \(output.stderr.suffix(300))")
            #expect(output.stderr.split(separator: "\n").count == 1, "\(file): \(output.stderr.suffix(300))")
            #expect(output.stderr.contains(flag == "--schema" ? "invalid schema" : "invalid grammar") && output.stderr.contains(reason),
                    "\(file): \(output.stderr.suffix(300))")
        }
    }

    @Test("Hardening #15: --schema enforces formats, patterns and uniqueItems, and names what it cannot enforce")
    func keywords() throws {
        let folder = try ScratchFolder()
        func run(_ schema: String, _ prompt: String) throws -> CommandRunner.Output {
            try schema.write(toFile: folder.path("schema.json"), atomically: true, encoding: .utf8)
            return try CommandRunner.llmkit(["run", "--raw", "--schema", folder.path("schema.json"), "-n", "80",
                                             "--temperature", "0.8", "--seed", "2", prompt])
        }
        let unsupported = try run(#"{"type": "object", "properties": {"value": {"not": {"type": "null"}}}, "required": ["value"]}"#, "x")
        #expect(unsupported.status == 1 && unsupported.stderr.contains("schema.value") && unsupported.stderr.contains(#""not""#),
                "\(unsupported.stderr)")
        let email = try run(#"{"type": "object", "properties": {"email": {"type": "string", "format": "email"}}, "required": ["email"]}"#,
                            "A contact as JSON:\n")
        #expect(email.status == 0, "\(email.stderr)")
        let address = try #require(try JSONSerialization.jsonObject(with: Data(email.stdout.utf8)) as? [String: String])["email"] ?? ""
        #expect(address.wholeMatch(of: /[^@\s]+@[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2,}/) != nil, "\(address)")
        let code = try run(#"{"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"}"#, "A code:")
        #expect(code.status == 0, "\(code.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(code.stdout.utf8), options: .fragmentsAllowed) as? String)?
            .wholeMatch(of: /[A-Z]{3}-[0-9]{2}/) != nil, "\(code.stdout)")
        let duplicates = try run(#"{"type": "array", "prefixItems": [{"const": "a"}, {"const": "a"}], "uniqueItems": true}"#, "x")
        #expect(duplicates.status == 1 && duplicates.stderr.contains("items 0 and 1 are equal") && duplicates.stderr.contains("uniqueItems"),
                "\(duplicates.stderr)")
    }
}
