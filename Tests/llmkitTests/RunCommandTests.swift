import Foundation
import LocalLLMKit
import Testing

@Suite("llmkit run")
struct RunCommandTests {
    static let parityPrompts = [
        "Once upon a time",
        "The three primary colors are",
        "def fibonacci(n):\n    ",
        "東京は日本の首都で、",
        "한국의 수도는",
    ]

    @Test("greedy output is byte for byte llama-completion's", arguments: parityPrompts)
    func parityWithLlamaCompletion(prompt: String) throws {
        try CompletionParity.expectSameText(model: try ReferenceModel.url().path, prompt: prompt)
    }

    @Test("--raw prints only the generated text, and llama.cpp stays silent")
    func rawOutputIsClean() throws {
        let plain = try CommandRunner.llmkit(["run", "--raw", "-n", "12", "--temperature", "0", "Once upon a time"])
        let json = try CommandRunner.llmkit(["run", "--raw", "-n", "12", "--temperature", "0", "--json", "Once upon a time"])
        #expect(plain.status == 0 && json.status == 0)
        #expect(plain.stderr.isEmpty, "unexpected stderr: \(plain.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["text"] as? String == plain.stdout)
    }

    @Test("--json prints one object with the documented fields")
    func jsonFields() throws {
        let output = try CommandRunner.llmkit(["run", "--raw", "-n", "6", "--temperature", "0", "--seed", "5", "--json", "Hello"])
        #expect(output.status == 0)
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(object["stop_reason"] as? String == "maximum_tokens")
        #expect(object["generated_tokens"] as? Int == 6)
        #expect((object["prompt_tokens"] as? Int ?? 0) >= 2)
        #expect((object["prompt_tokens_per_second"] as? Double ?? 0) > 0)
        #expect((object["generation_tokens_per_second"] as? Double ?? 0) > 0)
        #expect((object["time_to_first_token_ms"] as? Double ?? 0) > 0)
        #expect(object["text"] is String)
        #expect(object["seed"] as? Int == 5)
    }

    @Test("--verbose shows llama.cpp's log on stderr")
    func verbose() throws {
        let output = try CommandRunner.llmkit(["run", "--raw", "-n", "2", "--verbose", "Hi"])
        #expect(output.status == 0)
        #expect(output.stderr.contains("llama_model_loader") || output.stderr.contains("load_tensors"))
    }

    @Test("one completion keeps only a sliding-window model's window of cache, as llama-completion does; lookup and --prompt-cache keep it full")
    func slidingWindowCache() throws {
        /// The size of the sliding-window layers' cache, from llama.cpp's log.
        func swaCells(_ extra: [String]) throws -> Int? {
            let output = try CommandRunner.llmkit(["run", "-m", try ReferenceModel.url().path, "-n", "2", "--context", "4096",
                                                   "--verbose"] + extra + ["Hi"])
            #expect(output.status == 0, "\(output.stderr)")
            let line = output.stderr.split(separator: "\n").first { $0.contains("SWA KV cache, size = ") && !$0.contains("non-SWA") }
            return line.flatMap { Int($0.split(separator: "= ").last?.split(separator: " ").first ?? "") }
        }
        // Gemma 3 (the reference model) attends over 512 tokens in its sliding-window layers;
        // llama.cpp keeps 512 plus one micro-batch of them, or all 4096 with the full-size cache.
        let window = try #require(try swaCells(["--raw"]))
        #expect(window < 4096, "\(window) cells")
        #expect(try swaCells(["--raw", "--lookup"]) == 4096)
        // The prompt cache's entries are prefixes for later processes: they need every position.
        #expect(try swaCells(["--raw", "--prompt-cache"]) == 4096)

        // So the default prompt cache leaves such a run alone; asked for, it keeps the prefix.
        let long = (1...60).map { "Line \($0) of the harbour log." }.joined(separator: " ")
        for (flags, kept) in [([String](), 0), (["--prompt-cache"], 1)] {
            let home = FileManager.default.temporaryDirectory.appending(path: "llmkit-swa-prompt-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let output = try CommandRunner.llmkit(["run", "--raw", "-m", try ReferenceModel.url().path, "-n", "2"] + flags + [long],
                                                  environment: ["LLMKIT_HOME": home.path])
            #expect(output.status == 0, "\(output.stderr)")
            let entries = FileManager.default.enumerator(atPath: home.path)?.allObjects.compactMap { $0 as? String }
                .filter { $0.hasSuffix(".prompt") } ?? []
            #expect(entries.count == kept, "\(flags): \(entries)")
        }
    }

    @Test("a prompt can come from stdin")
    func stdinPrompt() throws {
        let argument = try CommandRunner.llmkit(["run", "--raw", "-n", "8", "--temperature", "0", "Once upon a time"])
        let piped = try CommandRunner.llmkit(["run", "--raw", "-n", "8", "--temperature", "0", "-"], stdin: "Once upon a time")
        #expect(piped.status == 0)
        #expect(piped.stdout == argument.stdout)
    }

    @Test("chat mode with a system message ends its answer with a newline")
    func chatMode() throws {
        let output = try CommandRunner.llmkit(["run", "-n", "8", "--temperature", "0", "--system", "Be brief.", "Name a fruit."])
        #expect(output.status == 0)
        #expect(output.stdout.hasSuffix("\n"))
    }

    @Test("Ctrl-C cancels generation cleanly and exits with 130")
    func interrupt() throws {
        let output = try CommandRunner.interruptLLMKit(["run", "--raw", "-n", "3000", "--temperature", "0", "Once upon a time"])
        #expect(output.exitedNormally, "llmkit was killed by a signal")
        #expect(output.status == 130)
        #expect(!output.stdout.isEmpty)
    }

    @Test("SIGTERM cancels generation cleanly too, and exits with 143")
    func terminate() throws {
        for arguments in [["run", "--raw", "-n", "3000", "--temperature", "0", "Once upon a time"],
                          ["run", "--stream-json", "-n", "3000", "--temperature", "0", "Tell a long story."]] {
            let output = try CommandRunner.interruptLLMKit(arguments, signal: SIGTERM)
            #expect(output.exitedNormally, "\(arguments): killed by a signal")
            #expect(output.status == 143, "\(arguments): \(output.stderr)")
            #expect(!output.stdout.isEmpty)
        }
    }
}
