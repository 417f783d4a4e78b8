import Foundation
import LocalLLMKit
import Testing

/// A temporary folder for CLI tests, removed when the value goes away.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "llmkit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appending(path: name).path }

    /// An environment whose model library and Hugging Face and Ollama caches are in this folder,
    /// over the real bootstrap cache (its default model and Gemma), with no `LLMKIT_MODEL`.
    var libraryEnvironment: [String: String] {
        ["LLMKIT_HOME": path("home"), "HF_HUB_CACHE": path("hf"), "OLLAMA_MODELS": path("ollama"), "LLMKIT_MODEL": ""]
    }
}

enum Templates {
    static func path(_ name: String) -> String {
        (ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local") + "/share/llmkit/templates/\(name).jinja"
    }
}

@Suite("llmkit prompt")
struct PromptCommandTests {
    static let messages = """
    [{"role": "system", "content": "You are terse."},
     {"role": "user", "content": "Hi!"},
     {"role": "assistant", "content": "Hello.", "reasoning_content": "Greet back."},
     {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
       "function": {"name": "get_weather", "arguments": {"city": "Seoul"}}}]},
     {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
     {"role": "user", "content": "What is 2+2?"}]
    """

    @Test("prints exactly the prompt the library renders, and nothing else")
    func exactPrompt() async throws {
        let folder = try ScratchFolder()
        try Self.messages.write(toFile: folder.path("messages.json"), atomically: true, encoding: .utf8)
        let template = Templates.path("Qwen-Qwen3-0.6B")
        for flags in [[], ["--thinking"], ["--no-generation-prompt"]] {
            let output = try CommandRunner.llmkit(["prompt", "--chat-template", template, "--messages", folder.path("messages.json")] + flags)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stderr.isEmpty)
            let model = try await LocalModel.load(from: ReferenceModel.url(), configuration: .init(vocabularyOnly: true))
            let messages = try JSONDecoder().decode([ChatMessage].self, from: Data(Self.messages.utf8))
            let expected = try ChatTemplate(model: model, override: String(contentsOfFile: template, encoding: .utf8))
                .render(messages, addGenerationPrompt: !flags.contains("--no-generation-prompt"),
                        enableThinking: flags.contains("--thinking")).text
            #expect(output.stdout == expected)
            #expect(output.stdout.contains("<tool_call>") && output.stdout.contains("Seoul") && output.stdout.contains("Sunny"))
        }
    }

    @Test("--template-source reports which template was chosen")
    func templateSource() throws {
        let folder = try ScratchFolder()
        try #"[{"role": "user", "content": "Hi"}]"#.write(toFile: folder.path("m.json"), atomically: true, encoding: .utf8)
        let builtin = try CommandRunner.llmkit(["prompt", "--messages", folder.path("m.json"), "--template-source"])
        #expect(builtin.stderr == "template: builtin:gemma\n")
        #expect(builtin.stdout == "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n")
        let chatml = try CommandRunner.llmkit(["prompt", "--chat-template", "chatml", "--messages", folder.path("m.json"), "--template-source"])
        #expect(chatml.stderr == "template: chatml\n")
        let piped = try CommandRunner.llmkit(["prompt", "--messages", "-"], stdin: #"[{"role": "user", "content": "Hi"}]"#)
        #expect(piped.stdout == builtin.stdout)
    }

    @Test("bad input is reported with the file at fault")
    func badInput() throws {
        let folder = try ScratchFolder()
        try #"{"role": "user"}"#.write(toFile: folder.path("object.json"), atomically: true, encoding: .utf8)
        try #"[{"role": "wizard", "content": "x"}]"#.write(toFile: folder.path("role.json"), atomically: true, encoding: .utf8)
        for file in ["object.json", "role.json", "missing.json"] {
            let output = try CommandRunner.llmkit(["prompt", "--messages", folder.path(file)])
            #expect(output.status == 1)
            #expect(output.stderr.contains(folder.path(file)))
        }
        let template = try CommandRunner.llmkit(["prompt", "--chat-template", folder.path("none.jinja"), "--messages", folder.path("role.json")])
        #expect(template.status == 1)
        #expect(try CommandRunner.llmkit(["prompt"]).status == 2)
    }
}

@Suite("llmkit chat")
struct ChatCommandTests {
    static let flags = ["--max-tokens", "12", "--temperature", "0", "--system", "Be brief."]

    static func turnStatistics(_ stderr: String) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("piped lines are messages; --stats gives one JSON line per turn")
    func pipedTurns() throws {
        let output = try CommandRunner.llmkit(["chat", "--stats"] + Self.flags, stdin: "Hello there.\nTell me a story.\n\nAnd then?\n")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.hasSuffix("\n"))
        let turns = try Self.turnStatistics(output.stderr)
        #expect(turns.count == 3)
        #expect(turns.map { $0["turn"] as? Int } == [1, 2, 3])
        for turn in turns {
            for key in ["prompt_tokens", "evaluated_tokens", "generated_tokens", "time_to_first_token_ms"] {
                #expect(turn[key] != nil, "missing \(key)")
            }
            #expect(turn["generated_tokens"] as? Int == 12)
        }
        let second = turns[1]
        #expect((second["evaluated_tokens"] as? Int ?? 0) < (second["prompt_tokens"] as? Int ?? 0))
    }

    @Test("/save in one process and /load in another continue with the same output, without re-evaluating")
    func saveAndLoadAcrossProcesses() throws {
        let folder = try ScratchFolder()
        let file = folder.path("talk.llmconv")
        let first = try CommandRunner.llmkit(["chat", "--stats"] + Self.flags,
                                            stdin: "Hello there.\nTell me about rivers.\n/save \(file)\nAnd lakes?\n")
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CommandRunner.llmkit(["chat", "--stats"] + Self.flags, stdin: "/load \(file)\nAnd lakes?\n")
        #expect(second.status == 0, "\(second.stderr)")
        let original = try Self.turnStatistics(first.stderr).last!
        let restored = try Self.turnStatistics(second.stderr).last!
        #expect(restored["turn"] as? Int == 3)
        #expect(restored["evaluated_tokens"] as? Int == original["evaluated_tokens"] as? Int)
        #expect((restored["evaluated_tokens"] as? Int ?? 99) < 30)
        // The restored answer is the last answer of the first process.
        #expect(second.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count > 3)
        #expect(first.stdout.hasSuffix(second.stdout),
                "first: \(first.stdout.debugDescription)\nsecond: \(second.stdout.debugDescription)")
    }

    @Test("a bad /load is reported, the conversation goes on, and the exit code says something failed")
    func badLoad() throws {
        let folder = try ScratchFolder()
        try Data("not a conversation".utf8).write(to: URL(filePath: folder.path("bad.llmconv")))
        let output = try CommandRunner.llmkit(["chat", "--stats"] + Self.flags,
                                             stdin: "Hello.\n/load \(folder.path("bad.llmconv"))\nStill there?\n/bogus\n")
        #expect(output.status == 1)
        #expect(output.stderr.contains("invalid conversation file \(folder.path("bad.llmconv"))"))
        #expect(output.stderr.contains("unknown command '/bogus'"))
        #expect(try Self.turnStatistics(output.stderr).count == 2)
    }

    @Test("/reset forgets the turns")
    func reset() throws {
        let output = try CommandRunner.llmkit(["chat", "--stats"] + Self.flags, stdin: "Hello.\n/reset\nHello.\n")
        let turns = try Self.turnStatistics(output.stderr)
        #expect(turns.map { $0["turn"] as? Int } == [1, 1])
        #expect(turns[0]["prompt_tokens"] as? Int == turns[1]["prompt_tokens"] as? Int)
    }

    @Test("run accepts --chat-template and thinking flags")
    func runWithTemplate() throws {
        let output = try CommandRunner.llmkit(["run", "--chat-template", Templates.path("Qwen3.5-4B"), "--thinking",
                                               "--thinking-budget", "0", "-n", "8", "--temperature", "0", "--json", "Hi"])
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        // A zero budget closes the thinking at once: null (nothing), or white space at most.
        #expect(object["thinking"] is NSNull
                || (object["thinking"] as? String ?? "x").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(try CommandRunner.llmkit(["run", "--raw", "--thinking", "x"]).status == 2)
    }
}
