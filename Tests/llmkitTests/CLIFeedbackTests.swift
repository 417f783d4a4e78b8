import Foundation
import LocalLLMKit
import Testing

/// The command line says what it did (issue 33): tool calls end in the answer, nothing is a
/// silent no-op, help shows the everyday flags first, and bench shows progress on a terminal.
@Suite("llmkit says what it did", .serialized)
struct CLIFeedbackTests: ScratchLibrarySuite {
    let scratch: ScratchFolder
    /// A scratch library, with the real bootstrap cache.
    let environment: [String: String]

    init() throws {
        scratch = try ScratchFolder()
        environment = scratch.libraryEnvironment
    }

    @Test("run --tools on a model that calls them ends in its answer on stdout; calls go to stderr, or into --json")
    func toolLoopEndsInAnswer() throws {
        let arguments = ["run", "-m", "qwen2.5-coder-0.5b-instruct", "--tools", "calculate", "-n", "160", "--temperature", "0",
                         "What is 1234 times 5678? Use the calculate tool, then answer with the number."]
        let output = try llmkit(arguments)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("[call-1] calculate("), "\(output.stderr)")
        #expect(output.stderr.contains("7006652"), "the tool's result is shown: \(output.stderr)")
        #expect(!output.stdout.contains("[call-") && !output.stdout.contains("<tool_call>"), "\(output.stdout)")
        let answer = output.stdout.replacingOccurrences(of: ",", with: "")
        #expect(answer.contains("7006652"), "the answer uses the result: \(output.stdout)")

        let json = try llmkit(arguments + ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["stop_reason"] as? String == "end_of_text")
        #expect((report["text"] as? String)?.replacingOccurrences(of: ",", with: "").contains("7006652") == true, "\(report)")
        let calls = try #require(report["tool_calls"] as? [[String: Any]])
        #expect(calls.first?["name"] as? String == "calculate" && (calls.first?["output"] as? String)?.contains("7006652") == true)
        #expect(!json.stderr.contains("[call-1]"), "--json keeps the calls in the report: \(json.stderr)")
    }

    @Test("--tools on a template that cannot call tools names an installed model that can")
    func toolsUnsupportedNamesAModel() throws {
        let output = try llmkit(["run", "-m", "gemma-3-270m", "--tools", "calculate", "Hi"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("cannot render tools") && output.stderr.contains("-m qwen2.5-coder-0.5b-instruct"),
                "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
    }

    @Test("no silent no-ops: --thinking without a thinking phase, --raw that generates nothing, embed's limit")
    func noSilentNoOps() throws {
        let thinking = try llmkit(["run", "-m", "default", "--thinking", "-n", "4", "--temperature", "0", "Hi"])
        #expect(thinking.status == 0, "\(thinking.stderr)")
        #expect(thinking.stderr.contains("--thinking does nothing here") && thinking.stderr.split(separator: "\n").count == 1,
                "\(thinking.stderr)")
        let plain = try llmkit(["run", "-m", "default", "-n", "4", "--temperature", "0", "Hi"])
        #expect(plain.status == 0 && !plain.stderr.contains("--thinking"), "\(plain.stderr)")

        // A grammar that admits only the empty text: the model can only end at once.
        try #"root ::= """#.write(toFile: scratch.path("empty.gbnf"), atomically: true, encoding: .utf8)
        let nothing = try llmkit(["run", "-m", "gemma-3-270m", "--raw", "--grammar", scratch.path("empty.gbnf"), "-n", "8", "The sky is"])
        #expect(nothing.exitedNormally && nothing.stdout.isEmpty)
        #expect(nothing.stderr.contains("the model generated nothing"), "\(nothing.stderr)")
        let something = try llmkit(["run", "-m", "gemma-3-270m", "--raw", "-n", "4", "--temperature", "0", "The sky is"])
        #expect(something.status == 0 && !something.stdout.isEmpty && something.stderr.isEmpty, "\(something.stderr)")

        let long = String(repeating: "a long sentence about nothing in particular ", count: 200)
        let embed = try llmkit(["embed", "-m", "all-minilm-l6-v2", long])
        #expect(embed.status == 1 && embed.stderr.contains("--truncate"), "\(embed.stderr)")
        let truncated = try llmkit(["embed", "-m", "all-minilm-l6-v2", "--truncate", long])
        #expect(truncated.status == 0, "\(truncated.stderr)")
    }

    @Test("-c too small for the prompt says so in one line; without -n a small -c bounds the answer")
    func contextTooSmall() throws {
        for arguments in [["run", "-m", "default", "-c", "16", "-n", "4", "Tell me about the history of the city of Paris."],
                          ["run", "-m", "default", "--raw", "-c", "16", "-n", "4", String(repeating: "word ", count: 40)]] {
            let output = try llmkit(arguments)
            #expect(output.status == 1, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains("prompt too long") && output.stderr.contains("--context"), "\(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        }
        // Without -n, a context smaller than the default answer length bounds the answer itself,
        // rather than an error about a --max-tokens the user never gave.
        let bounded = try llmkit(["run", "-m", "default", "-c", "96", "--temperature", "0", "--json", "Write a long story."])
        #expect(bounded.status == 0, "\(bounded.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(bounded.stdout.utf8)) as? [String: Any]
        let prompt = try #require(report?["prompt_tokens"] as? Int), generated = try #require(report?["generated_tokens"] as? Int)
        #expect(generated > 0 && prompt + generated <= 96, "\(bounded.stdout)")
    }

    @Test("--help shows the everyday flags first, then the rest under headings; the usage line lists them", arguments: ["run", "chat"])
    func everydayFlagsFirst(_ command: String) throws {
        let help = try llmkit([command, "--help"]).stdout
        let usage = try #require(help.split(separator: "\n").first)
        for flag in ["-m MODEL", "-n N", "--temperature T", "-sys TEXT"] {
            #expect(usage.contains(flag), "the usage line lacks \(flag): \(usage)")
        }
        // Positions in the text under the usage line.
        let body = String(help.drop { $0 != "\n" })
        func position(_ text: String) throws -> String.Index {
            try #require(body.range(of: text), "\(command) --help lacks \(text)").lowerBound
        }
        let everyday = try ["-m, --model", "-n, --max-tokens", "--temperature T", "-sys, --system"].map(position)
        #expect(everyday == everyday.sorted(), "the everyday flags are out of order")
        let headings = try ["\nsampling:\n", "\nchat template, thinking and tools:\n", "\nstructured output:\n",
                            "\nloading the model:\n", "\nspeculative decoding:\n", "\noutput:\n"].map(position)
        #expect(everyday.last! < headings.min()!, "an everyday flag comes after a heading")
        #expect(try position("--top-k K") > position("\nsampling:\n"))
        #expect(try position("-t, --threads") > position("\nloading the model:\n"))
        // Each flag is declared once.
        for declaration in ["-m, --model MODEL", "--temperature T ", "-n, --max-tokens N", "-sys, --system TEXT", "--top-k K",
                            "--chat-template T", "--schema FILE.json", "-t, --threads N", "--lookup "] {
            #expect(help.components(separatedBy: declaration).count == 2, "\(declaration) is declared \(help.components(separatedBy: declaration).count - 1) times")
        }
    }

    @Test("bench shows which test runs on a terminal, and nothing extra through a pipe")
    func benchProgress() throws {
        let arguments = ["bench", "-m", "default", "-p", "8", "-n", "4", "-r", "1"]
        let terminal = try TerminalSession.llmkit(arguments, environment: environment, steps: [])
        #expect(terminal.status == 0, "\(terminal.transcript)")
        #expect(terminal.transcript.contains("llmkit bench: test 1/2: pp8"), "\(terminal.transcript)")
        #expect(terminal.transcript.contains("llmkit bench: test 2/2: tg4"), "\(terminal.transcript)")
        #expect(terminal.stdout.contains("pp8") && !terminal.stdout.contains("llmkit bench: test"))
        let piped = try llmkit(arguments)
        #expect(piped.status == 0 && piped.stdout.contains("pp8"))
        #expect(!piped.stderr.contains("llmkit bench: test"), "\(piped.stderr)")
    }
}
