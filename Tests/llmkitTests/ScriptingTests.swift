import Foundation
import Testing

/// Output that scripts can rely on: a cut-off structured answer fails, `--json` always has the
/// same keys, `--stream-json` gives one object per event, and the defaults are finite.
@Suite("llmkit run for scripts")
struct ScriptingTests {
    static let schema = #"{"type": "object", "properties": {"answer": {"type": "string"}, "reasons": {"type": "array", "items": {"type": "string"}, "minItems": 3}}, "required": ["answer", "reasons"]}"#

    static func object(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("a structured answer cut off by --max-tokens exits 1 with 'incomplete JSON', in chat and raw mode")
    func incompleteStructuredOutput() throws {
        let folder = try ScratchFolder()
        try Self.schema.write(toFile: folder.path("schema.json"), atomically: true, encoding: .utf8)
        for flags in [["--raw"], [], ["--json"]] {
            let output = try CommandRunner.llmkit(["run", "--schema", folder.path("schema.json"), "-n", "6",
                                                   "--temperature", "0"] + flags + ["Is water wet?"])
            #expect(output.status == 1, "\(flags): \(output.stdout)")
            #expect(output.stderr.contains("incomplete JSON: token limit reached"), "\(flags): \(output.stderr)")
        }
        try "root ::= \"yes\" \" \" \"indeed\" \" \" \"it\" \" \" \"is\"\n".write(toFile: folder.path("g.gbnf"), atomically: true, encoding: .utf8)
        let grammar = try CommandRunner.llmkit(["run", "--raw", "--grammar", folder.path("g.gbnf"), "-n", "1", "Is the sky blue? "])
        #expect(grammar.status == 1 && grammar.stderr.contains("incomplete output: token limit reached"), "\(grammar.stderr)")
        let complete = try CommandRunner.llmkit(["run", "--raw", "--grammar", folder.path("g.gbnf"), "-n", "40", "Is the sky blue? "])
        #expect(complete.status == 0 && complete.stdout == "yes indeed it is", "\(complete.stdout)\(complete.stderr)")
    }

    @Test("--json has the same keys whatever the run did, with null where there is nothing")
    func stableKeys() throws {
        let runs = [["run", "--raw", "--json", "-n", "3", "--temperature", "0", "Once upon a time"],
                    ["run", "--json", "-n", "3", "--temperature", "0", "Hi"],
                    ["run", "--raw", "--json", "-n", "30", "--temperature", "0", "--stop", " ", "Once upon a time"]]
        var keySets: [Set<String>] = []
        for arguments in runs {
            let output = try CommandRunner.llmkit(arguments)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            let report = try Self.object(output.stdout)
            keySets.append(Set(report.keys))
            #expect(report["thinking"] is NSNull && report["tool_calls"] is NSNull, "\(arguments)")
        }
        #expect(Set(keySets).count == 1, "\(keySets)")
        #expect(keySets[0].isSuperset(of: ["text", "thinking", "stop_reason", "stop_sequence", "tool_calls", "seed", "model"]))
        #expect(!keySets[0].contains("type"))
    }

    @Test("--stream-json prints one JSON object per delta, then the report marked done")
    func streamJSON() throws {
        for flags in [["--raw"], []] {
            let output = try CommandRunner.llmkit(["run", "--stream-json", "-n", "12", "--temperature", "0"] + flags + ["Once upon a time"])
            #expect(output.status == 0, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count >= 3, "\(output.stdout)")
            let objects = try lines.map(Self.object)
            let done = try #require(objects.last)
            #expect(done["type"] as? String == "done" && done["generated_tokens"] as? Int == 12)
            let deltas = objects.dropLast()
            #expect(deltas.allSatisfy { $0["type"] as? String == "text" }, "\(lines)")
            #expect(deltas.map { $0["text"] as? String ?? "" }.joined() == done["text"] as? String)
        }
        let both = try CommandRunner.llmkit(["run", "--json", "--stream-json", "Hi"])
        #expect(both.status == 2 && both.stderr.contains("cannot be combined"))
    }

    @Test("a base model in chat mode gets one line saying so; with --raw, or a chat model, nothing")
    func baseModelNote() throws {
        let chat = try CommandRunner.llmkit(["run", "-n", "2", "--temperature", "0", "Hi"])
        #expect(chat.status == 0)
        #expect(chat.stderr.split(separator: "\n").count == 1 && chat.stderr.contains("has no chat template of its own"),
                "\(chat.stderr)")
        let raw = try CommandRunner.llmkit(["run", "--raw", "-n", "2", "--temperature", "0", "Hi"])
        #expect(raw.status == 0 && raw.stderr.isEmpty, "\(raw.stderr)")
        let chatModel = try CommandRunner.llmkit(["run", "-n", "2", "--temperature", "0", "Hi"], environment: ["LLMKIT_MODEL": ""])
        #expect(chatModel.status == 0 && chatModel.stderr.isEmpty, "\(chatModel.stderr)")
    }

    @Test("the default answer length is finite (1,024 tokens); -1 lifts it, 0 is a usage error")
    func finiteDefault() throws {
        // Gemma, a base model, never ends this story at temperature 0: only the default stops it.
        let output = try CommandRunner.llmkit(["run", "--raw", "--json", "--temperature", "0", "Once upon a time"])
        #expect(output.status == 0, "\(output.stderr)")
        let bounded = try Self.object(output.stdout)
        #expect(bounded["generated_tokens"] as? Int == 1024 && bounded["stop_reason"] as? String == "maximum_tokens")
        let zero = try CommandRunner.llmkit(["run", "--raw", "-n", "0", "Hi"])
        #expect(zero.status == 2 && zero.stderr.contains("--max-tokens must be positive"), "\(zero.stderr)")
        let unlimited = try CommandRunner.llmkit(["run", "--raw", "--json", "-n", "-1", "--context", "64", "--temperature", "0",
                                                  "Once upon a time"])
        #expect(unlimited.status == 0, "\(unlimited.stderr)")
        let report = try Self.object(unlimited.stdout)
        // Without a limit the answer runs until it ends or the 64-token context is full.
        #expect((report["generated_tokens"] as? Int ?? 0) + (report["prompt_tokens"] as? Int ?? 0) <= 64)
    }
}
