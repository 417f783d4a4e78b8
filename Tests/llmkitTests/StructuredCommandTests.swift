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
        #expect(rows.map { $0["mode"] as? String } == ["unconstrained", "constrained"])
        #expect(rows.allSatisfy { ($0["tokens_per_second"] as? Double ?? 0) > 0 })
    }
}
