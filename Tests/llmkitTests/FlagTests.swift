import Foundation
import LocalLLMKit
import Testing

/// The flags people already know: llama.cpp's spellings, "did you mean", escapes in `--stop`,
/// `--sha256` checks and flag names in errors, all through the real binary.
@Suite("llmkit flags people already know")
struct FlagTests {
    /// `stdout` of a run that must succeed.
    private func answer(_ arguments: [String], stdin: String? = nil) throws -> String {
        let output = try CommandRunner.llmkit(arguments, stdin: stdin)
        #expect(output.status == 0, "\(arguments): \(output.stderr)")
        return output.stdout
    }

    /// A run that must be a usage error (exit 2, usage line) whose message contains `named`.
    private func usageError(_ arguments: [String], naming named: String...,
                            environment: [String: String] = [:]) throws -> CommandRunner.Output {
        let output = try CommandRunner.llmkit(arguments, environment: environment)
        #expect(output.exitedNormally && output.status == 2, "\(arguments): \(output.status) \(output.stderr)")
        #expect(output.stderr.contains("usage: llmkit"), "\(arguments): \(output.stderr)")
        for text in named { #expect(output.stderr.contains(text), "\(arguments): \(output.stderr)") }
        #expect(output.stdout.isEmpty)
        return output
    }

    @Test("-p, -f, --file, -n, --n-predict and --temp generate what the canonical flags do")
    func promptAndSamplingAliases() throws {
        let folder = try ScratchFolder()
        try "Once upon a time".write(toFile: folder.path("prompt.txt"), atomically: true, encoding: .utf8)
        let canonical = try answer(["run", "--raw", "--max-tokens", "10", "--temperature", "0", "Once upon a time"])
        #expect(!canonical.isEmpty)
        #expect(try answer(["run", "--raw", "-n", "10", "--temp", "0", "-p", "Once upon a time"]) == canonical)
        #expect(try answer(["run", "--raw", "--n-predict", "10", "--temp=0", "-f", folder.path("prompt.txt")]) == canonical)
        #expect(try answer(["run", "--raw", "--n-predict=10", "--temp", "0", "--file", folder.path("prompt.txt")]) == canonical)
        #expect(try answer(["run", "--raw", "-n", "10", "--temp", "0", "-f", "-"], stdin: "Once upon a time") == canonical)
    }

    @Test("-r and --reverse-prompt are --stop, and \\uXXXX in it is decoded")
    func reversePromptWithEscape() throws {
        let text = try answer(["run", "--raw", "-n", "16", "--temp", "0", "Once upon a time"])
        // The first word after the first space: stop at " WORD", written with \u0020.
        let words = text.split(separator: " ")
        let word = try #require(words.dropFirst().first.map(String.init), "no second word in \(text.debugDescription)")
        for flag in ["-r", "--reverse-prompt", "--stop"] {
            let output = try CommandRunner.llmkit(["run", "--raw", "-n", "16", "--temp", "0", "--json", flag, "\\u0020" + word,
                                                   "Once upon a time"])
            #expect(output.status == 0, "\(output.stderr)")
            let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            #expect(object["stop_reason"] as? String == "stop_sequence", "\(flag): \(output.stdout)")
            #expect(object["stop_sequence"] as? String == " " + word, "\(flag): \(output.stdout)")
        }
    }

    @Test("-j and --json-schema take an inline JSON Schema; -jf is --schema")
    func inlineSchema() throws {
        let folder = try ScratchFolder()
        let schema = #"{"type": "object", "properties": {"answer": {"type": "boolean"}}, "required": ["answer"], "additionalProperties": false}"#
        try schema.write(toFile: folder.path("schema.json"), atomically: true, encoding: .utf8)
        let inline = try answer(["run", "-j", schema, "-n", "40", "--temp", "0", "Is water wet?"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(inline.utf8)) as? [String: Any], "\(inline)")
        #expect(object["answer"] is Bool)
        #expect(try answer(["run", "--json-schema", schema, "-n", "40", "--temp", "0", "Is water wet?"]) == inline)
        #expect(try answer(["run", "-jf", folder.path("schema.json"), "-n", "40", "--temp", "0", "Is water wet?"]) == inline)
        try usageError(["run", "-j", schema, "--schema", folder.path("schema.json"), "x"], naming: "--schema and --json-schema cannot be combined")
    }

    @Test("aliases reach the canonical flag without generating", arguments: [
        (["run", "--raw", "-sys", "Be brief.", "x"], "--system needs chat mode"),
        (["run", "--raw", "--system-prompt", "Be brief.", "x"], "--system needs chat mode"),
        (["run", "--raw", "--chat-template-file", "chatml", "x"], "--chat-template needs chat mode"),
        (["run", "-n", "abc", "x"], "--max-tokens expects an integer"),
        (["chat", "--n-predict", "abc"], "--max-tokens expects an integer"),
        (["run", "--temp", "hot", "x"], "--temperature expects a number"),
        (["run", "--ctx-size", "0", "x"], "--context expects an integer"),
        (["run", "--n-gpu-layers", "many", "x"], "--gpu-layers expects an integer"),
        (["run", "-p", "a", "b"], "PROMPT and --prompt cannot be combined"),
        (["run", "-p", "a", "-f", "b"], "--prompt and --prompt-file cannot be combined"),
        (["chat", "-p", "hello"], "unknown option -p for 'chat'"),
        // bench keeps llama-bench's -p, -n and -r
        (["bench", "-p", "1,x"], "--n-prompt expects comma-separated integers"),
        (["bench", "-n", "x"], "--n-gen expects comma-separated integers"),
        (["bench", "-r", "x"], "--repetitions expects an integer"),
    ])
    func aliasesWithoutGeneration(_ arguments: [String], _ message: String) throws {
        try usageError(arguments, naming: message)
    }

    @Test("--grammar-file is --grammar: a missing file names --grammar")
    func grammarFile() throws {
        let output = try CommandRunner.llmkit(["run", "--raw", "--grammar-file", "/nonexistent/g.gbnf", "x"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("invalid value for --grammar") && output.stderr.contains("/nonexistent/g.gbnf"), "\(output.stderr)")
    }

    @Test("an unknown command or flag suggests the nearest one", arguments: [
        (["rnu"], "unknown command 'rnu'; did you mean 'run'?"),
        (["benhc", "-p", "1"], "did you mean 'bench'?"),
        (["--verison"], "did you mean '--version'?"),
        (["run", "--temprature", "0", "x"], "unknown option --temprature for 'run'; did you mean '--temperature'?"),
        (["run", "--max-token", "3", "x"], "did you mean '--max-tokens'?"),
        (["chat", "--sytem", "x"], "did you mean '--system'?"),
        (["bench", "--repetition", "3"], "did you mean '--repetitions'?"),
        (["pull", "x", "--sha265", "y"], "did you mean '--sha256'?"),
        (["completion", "bsh"], "did you mean 'bash'?"),
        (["help", "lst"], "did you mean 'list'?"),
    ])
    func didYouMean(_ arguments: [String], _ message: String) throws {
        try usageError(arguments, naming: message)
    }

    @Test("no suggestion when nothing is near")
    func noSuggestion() throws {
        let command = try usageError(["frobnicate"], naming: "unknown command 'frobnicate'")
        #expect(!command.stderr.contains("did you mean"))
        let flag = try usageError(["run", "--zzzzzz", "x"], naming: "unknown option --zzzzzz for 'run'")
        #expect(!flag.stderr.contains("did you mean"))
    }

    @Test("an invalid escape in --stop is a usage error naming the flag", arguments: [
        "a\\q", "ends with \\", "\\u12", "\\u12G4", "\\uD800", "\\x41",
    ])
    func invalidEscape(_ value: String) throws {
        try usageError(["run", "--stop", value, "x"], naming: "invalid escape", "in --stop")
        try usageError(["run", "-r", value, "x"], naming: "in --stop")
    }

    @Test("valid escapes in --stop are accepted (\\n \\t \\r \\\\ \\\" \\uXXXX)")
    func validEscapes() throws {
        let output = try CommandRunner.llmkit(["run", "--raw", "-n", "2", "--temp", "0", "--json",
                                               "--stop", "\\n\\t\\r\\\\\\\"\\u00e9", "Hi"])
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test("--sha256 that is not 64 hexadecimal digits is a usage error naming the flag", arguments: [
        "xyz", String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "g", count: 64),
        String(repeating: "Ａ", count: 64),
    ])
    func badChecksum(_ value: String) throws {
        let library = try ScratchLibrary()
        try usageError(["pull", "gemma-3-270m", "--sha256", value], naming: "--sha256 expects 64 hexadecimal digits",
                       environment: library.environment)
        #expect(library.contents(of: library.root).isEmpty)
    }

    @Test("library errors name the canonical flag, also when an alias set it", arguments: [
        (["run", "--temp", "-1", "x"], "invalid value for --temperature"),
        (["run", "--top-p", "2", "x"], "invalid value for --top-p"),
        (["run", "--min-p", "2", "x"], "invalid value for --min-p"),
        (["run", "--repeat-penalty", "0", "x"], "invalid value for --repeat-penalty"),
        (["run", "-r", "", "x"], "invalid value for --stop"),
        (["run", "-s", "4294967295", "x"], "--seed expects an integer"),
    ])
    func libraryErrorsNameFlags(_ arguments: [String], _ message: String) throws {
        try usageError(arguments, naming: message)
    }

    @Test("a chat template over the size limit names --chat-template, not chatTemplate")
    func templateLimitNamesFlag() throws {
        let folder = try ScratchFolder()
        try String(repeating: "x", count: 1 << 20).write(toFile: folder.path("big.jinja"), atomically: true, encoding: .utf8)
        let output = try CommandRunner.llmkit(["run", "--chat-template", folder.path("big.jinja"), "-n", "1", "Hi"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("invalid value for --chat-template"), "\(output.stderr)")
        #expect(!output.stderr.contains("chatTemplate"))
    }
}
