import Foundation
import LocalLLMKit
import Testing

/// The command line as people already type it (issue 33): Ollama's `run MODEL PROMPT`, `ls`,
/// `stop` and `--format json`, suggestions for typos, every model `--model` finds in `list`,
/// and an empty stdin as a usage error.
@Suite("llmkit as people already type it", .serialized)
struct CLIHabitsTests: ScratchLibrarySuite {
    let scratch: ScratchFolder
    /// A scratch library, with the real bootstrap cache (its default model, Gemma, Qwen, MiniLM).
    let environment: [String: String]

    init() throws {
        scratch = try ScratchFolder()
        environment = scratch.libraryEnvironment
    }

    @Test("run MODEL PROMPT takes a model name or an existing file first; two words that are no model say `did you mean -m MODEL?`")
    func runModelPrompt() throws {
        let flags = ["--raw", "-n", "6", "--temperature", "0"]
        let named = try llmkit(["run", "-m", "gemma-3-270m"] + flags + ["The sky is"])
        #expect(named.status == 0 && !named.stdout.isEmpty, "\(named.stderr)")
        let positional = try llmkit(["run", "gemma-3-270m", "The sky is"] + flags)
        #expect(positional.status == 0, "\(positional.stderr)")
        #expect(positional.stdout == named.stdout)
        let path = try llmkit(["run", try ReferenceModel.url().path, "The sky is"] + flags)
        #expect(path.status == 0 && path.stdout == named.stdout, "\(path.stderr)")

        let words = try llmkit(["run", "Hello", "world"])
        #expect(words.status == 2 && words.stdout.isEmpty)
        #expect(words.stderr.contains("'Hello' is no model that --model finds") && words.stderr.contains("did you mean -m MODEL?"),
                "\(words.stderr)")
        #expect(words.stderr.contains("usage: llmkit run"))
        let missingFile = try llmkit(["run", scratch.path("none.gguf"), "Hello"])
        #expect(missingFile.status == 2 && missingFile.stderr.contains("did you mean -m MODEL?"), "\(missingFile.stderr)")
        let both = try llmkit(["run", "-m", "gemma-3-270m", "gemma-3-270m", "Hello"])
        #expect(both.status == 2 && both.stderr.contains("run takes one PROMPT"), "\(both.stderr)")
        // A catalog model that is not downloaded is named as such (a runtime error), not taken as a prompt.
        let notDownloaded = try llmkit(["run", "lfm2-2.6b", "Hello"])
        #expect(notDownloaded.status == 1 && notDownloaded.stderr.contains("llmkit pull lfm2-2.6b"), "\(notDownloaded.stderr)")
    }

    @Test("ls is list; --format json is --json; typos of commands and flags get suggestions")
    func aliasesAndSuggestions() throws {
        let list = try llmkit(["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let ls = try llmkit(["ls", "--json"])
        #expect(ls.status == 0 && ls.stdout == list.stdout)
        let format = try llmkit(["ls", "--format", "json"])
        #expect(format.status == 0 && format.stdout == list.stdout)
        let inline = try llmkit(["list", "--format=json"])
        #expect(inline.status == 0 && inline.stdout == list.stdout)
        #expect(try llmkit(["help", "ls"]).stdout.hasPrefix("usage: llmkit list"))
        let yaml = try llmkit(["list", "--format", "yaml"])
        #expect(yaml.status == 2 && yaml.stderr.contains("--format takes json"), "\(yaml.stderr)")
        // Only where --json exists.
        let noJSON = try llmkit(["rm", "--format", "json", "x"])
        #expect(noJSON.status == 2 && noJSON.stderr.contains("unknown option --format"), "\(noJSON.stderr)")

        let command = try llmkit(["stpo", "smol"])
        #expect(command.status == 2 && command.stderr.contains("did you mean 'stop'?"), "\(command.stderr)")
        let flag = try llmkit(["list", "--fromat", "json"])
        #expect(flag.status == 2 && flag.stderr.contains("did you mean '--format'?"), "\(flag.stderr)")
        let runFlag = try llmkit(["run", "--temprature", "0", "Hi"])
        #expect(runFlag.status == 2 && runFlag.stderr.contains("did you mean '--temperature'?"), "\(runFlag.stderr)")
    }

    /// The names of the models `llmkit ps --url` lists.
    private func loaded(_ base: URL, key: String) throws -> [String] {
        let output = try llmkit(["ps", "--url", base.absoluteString, "--api-key", key, "--format", "json"])
        #expect(output.status == 0, "\(output.stderr)")
        let answer = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        return (answer["models"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test("stop MODEL unloads a model from a running serve, with its API key; a model not loaded is an error")
    func stopUnloads() throws {
        let (process, reader, base) = try CommandRunner.startServing(["-m", "smol=\(try ReferenceModel.chatURL().path)",
                                                                      "--api-key", "sesame"])
        defer {
            kill(process.processIdentifier, SIGTERM)
            _ = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        }
        #expect(try loaded(base, key: "sesame") == ["smol"])
        let withoutKey = try llmkit(["stop", "smol", "--url", base.absoluteString])
        #expect(withoutKey.status == 1 && withoutKey.stderr.contains("give --api-key"), "\(withoutKey.stderr)")
        #expect(try loaded(base, key: "sesame") == ["smol"])

        let stop = try llmkit(["stop", "smol", "--url", base.absoluteString, "--api-key", "sesame"])
        #expect(stop.status == 0 && stop.stderr.contains("unloaded smol"), "\(stop.stderr)")
        #expect(try loaded(base, key: "sesame").isEmpty)
        let again = try llmkit(["stop", "smol", "--url", base.absoluteString, "--api-key", "sesame"])
        #expect(again.status == 1 && again.stderr.contains("The model 'smol' is not loaded"), "\(again.stderr)")
        let unknown = try llmkit(["stop", "nosuch", "--url", base.absoluteString, "--api-key", "sesame"])
        #expect(unknown.status == 1 && unknown.stderr.contains("The model 'nosuch' does not exist"), "\(unknown.stderr)")

        // The next request loads it again.
        let body = #"{"model": "smol", "prompt": "Hello", "max_tokens": 2}"#
        let completion = try CommandRunner.run(URL(filePath: "/usr/bin/curl"), [
            "-sS", "-H", "Authorization: Bearer sesame", "-H", "Content-Type: application/json", "-d", body,
            base.appending(path: "completions").absoluteString,
        ])
        #expect(completion.stdout.contains("\"choices\""), "\(completion.stdout) \(completion.stderr)")
        #expect(try loaded(base, key: "sesame") == ["smol"])
        let missing = try llmkit(["stop"])
        #expect(missing.status == 2 && missing.stderr.contains("usage: llmkit stop"))
    }

    @Test("list shows the bootstrap's models by short names with their SOURCE; all-minilm-l6-v2 works in --model, embed -m and serve -m")
    func bootstrapModelsListed() throws {
        let output = try llmkit(["list", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let entries = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        let byID = Dictionary(entries.compactMap { entry in (entry["id"] as? String).map { ($0, entry) } }) { first, _ in first }
        var expected = ["default", "gemma-3-270m", "qwen2.5-coder-0.5b-instruct", "all-minilm-l6-v2"]
        let cache = try ReferenceModel.chatURL().deletingLastPathComponent()
        let qwen15 = FileManager.default.fileExists(atPath: cache.appending(path: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").path)
        if qwen15 { expected.append("qwen2.5-coder-1.5b-instruct") }
        for id in expected {
            let entry = try #require(byID[id], "\(id) is not listed: \(output.stdout)")
            #expect(entry["source"] as? String == "bootstrap" && entry["read_only"] as? Bool == true, "\(id)")
            #expect((entry["path"] as? String).map { FileManager.default.fileExists(atPath: $0) } == true)
        }
        #expect((byID["qwen2.5-coder-1.5b-instruct"] != nil) == qwen15)
        // The default model's file is listed once, as `default`, under its short name.
        #expect(byID["default"]?["name"] as? String == "smollm2-135m-instruct")
        #expect(byID["smollm2-135m-instruct"] == nil)
        let paths = entries.compactMap { $0["path"] as? String }
        #expect(Set(paths).count == paths.count, "a file is listed twice: \(paths)")

        let table = try llmkit(["list"])
        let header = try #require(table.stdout.split(separator: "\n").first)
        #expect(header.contains("SOURCE"))
        #expect(table.stdout.contains("all-minilm-l6-v2") && table.stdout.contains("qwen2.5-coder-0.5b-instruct"))

        // Every listed id finds its file.
        for id in expected {
            let show = try llmkit(["show", id, "--json"])
            #expect(show.status == 0, "show \(id): \(show.stderr)")
        }
        let embed = try llmkit(["embed", "-m", "all-minilm-l6-v2", "--json", "hello"])
        #expect(embed.status == 0, "\(embed.stderr)")
        let document = try #require(JSONSerialization.jsonObject(with: Data(embed.stdout.utf8)) as? [String: Any])
        #expect(document["dimensions"] as? Int == 384)
        let (process, reader, base) = try CommandRunner.startServing(["-m", "all-minilm-l6-v2"])
        let models = try CommandRunner.run(URL(filePath: "/usr/bin/curl"), ["-sS", base.appending(path: "models").absoluteString])
        kill(process.processIdentifier, SIGTERM)
        _ = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        #expect(models.stdout.contains("\"id\":\"all-minilm-l6-v2\"") || models.stdout.contains("\"id\": \"all-minilm-l6-v2\""),
                "\(models.stdout)")
    }

    @Test("list shows only the bootstrap's models whose files are there")
    func onlyPresentModels() throws {
        let empty = try CommandRunner.llmkit(["list", "--json"], environment: environment.merging(["LLMKIT_CACHE": scratch.path("cache")]) { $1 })
        #expect(empty.status == 0, "\(empty.stderr)")
        let entries = try #require(JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [Any])
        #expect(entries.isEmpty, "\(empty.stdout)")
    }

    @Test("run with an empty stdin and no prompt is a usage error, as on a terminal")
    func emptyStandardInput() throws {
        let piped = try llmkit(["run", "-n", "4"], stdin: "")
        #expect(piped.status == 2 && piped.stdout.isEmpty)
        #expect(piped.stderr.contains("missing PROMPT: standard input is empty") && piped.stderr.contains("usage: llmkit run"),
                "\(piped.stderr)")
        let terminal = try TerminalSession.llmkit(["run", "-n", "4"], environment: environment, steps: [])
        #expect(terminal.status == 2, "\(terminal.transcript)")
        #expect(terminal.transcript.contains("missing PROMPT"))
        // A prompt on stdin still works.
        let prompt = try llmkit(["run", "--raw", "-n", "2", "--temperature", "0"], stdin: "Once upon a time")
        #expect(prompt.status == 0 && !prompt.stdout.isEmpty, "\(prompt.stderr)")
    }
}
