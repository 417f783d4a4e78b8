import Foundation
import LocalLLMKit
import Testing

/// `llmkit serve` as a process: it announces its address, answers OpenAI requests, and stops
/// cleanly (exit 0) on SIGTERM; bad settings are usage errors.
@Suite(.serialized) struct ServeCommandTests {
    /// Starts `llmkit serve` on a free port and waits for its "listening on" line.
    private func start(_ arguments: [String]) throws -> (Process, PipeReader, URL) {
        try CommandRunner.startServing(arguments)
    }

    @Test func servesNamedModelsAndDrainsOnSIGTERM() throws {
        let path = try ReferenceModel.url().path
        let (process, reader, base) = try start(["--model", "gemma=\(path)", "--parallel", "2", "--api-key", "k-123", "--log-requests"])
        #expect(base.absoluteString.hasPrefix("http://127.0.0.1:") && base.path == "/v1")
        let curl = URL(filePath: "/usr/bin/curl")
        let models = try CommandRunner.run(curl, ["-sS", "-H", "Authorization: Bearer k-123", base.appending(path: "models").absoluteString])
        #expect(models.stdout.contains(#""id":"gemma""#), "\(models.stdout)")
        let completion = try CommandRunner.run(curl, ["-sS", "-H", "Authorization: Bearer k-123", "-H", "Content-Type: application/json", "-d",
                                                      #"{"model":"gemma","prompt":"The capital of France is","max_tokens":4,"temperature":0}"#,
                                                      base.appending(path: "completions").absoluteString])
        #expect(completion.stdout.contains(#""object":"text_completion""#), "\(completion.stdout)")
        let streamed = try CommandRunner.run(curl, ["-sS", "-N", "-H", "Authorization: Bearer k-123", "-H", "Content-Type: application/json", "-d",
                                                    #"{"model":"gemma","messages":[{"role":"user","content":"Name a colour of the sky."}],"max_tokens":4,"temperature":0,"stream":true}"#,
                                                    base.appending(path: "chat/completions").absoluteString])
        #expect(streamed.stdout.contains("data: [DONE]"), "\(streamed.stdout)")
        let denied = try CommandRunner.run(curl, ["-sS", "-o", "/dev/null", "-w", "%{http_code}", base.appending(path: "models").absoluteString])
        #expect(denied.stdout == "401")
        kill(process.processIdentifier, SIGTERM)
        let output = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        #expect(output.exitedNormally && output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("llmkit serve: stopped"))
        // Requests are logged without their content.
        #expect(output.stderr.contains("POST /v1/completions 200"))
        #expect(!output.stderr.contains("capital of France"))
        #expect(!output.stderr.contains("colour of the sky"))
        // The streamed chat answer says where the time to its first content went, and the parts add up.
        let timing = try #require(output.stderr.split(separator: "\n").first { $0.hasPrefix("first content ") }, "\(output.stderr)")
        let numbers = timing.split(whereSeparator: { !"0123456789.-".contains($0) }).compactMap { Double($0) }
        try #require(numbers.count == 7, "\(timing)")
        #expect(timing.contains("before the model") && timing.contains("after the first token"), "\(timing)")
        #expect(numbers[0] > 0 && numbers[1] >= 0 && numbers[2] >= 0 && numbers[3] > 0 && numbers[6] >= 0, "\(timing)")
        #expect(abs(numbers[1] + numbers[2] + numbers[3] + numbers[6] - numbers[0]) < 0.5, "\(timing)")
        #expect(numbers[4] >= 1 && numbers[4] <= numbers[5], "\(timing)")
    }

    @Test("serve --lookup speculates for the chat model, not for the embedding model, and counts drafts")
    func speculation() throws {
        let qwen = try ReferenceModel.toolCallingURL().path, minilm = try ReferenceModel.embeddingURL().path
        let (process, reader, base) = try start(["--model", "qwen=\(qwen)", "--model", "minilm=\(minilm)", "--parallel", "2", "--lookup"])
        #expect(reader.standardErrorSoFar.contains("speculation: prompt lookup"), "\(reader.standardErrorSoFar)")
        let curl = URL(filePath: "/usr/bin/curl")
        let body = #"{"model":"qwen","messages":[{"role":"user","content":"Repeat exactly: alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"}],"max_tokens":40,"temperature":0}"#
        let chat = try CommandRunner.run(curl, ["-sS", "-H", "Content-Type: application/json", "-d", body, base.appending(path: "chat/completions").absoluteString])
        #expect(chat.stdout.contains(#""object":"chat.completion""#), "\(chat.stdout)")
        let embedded = try CommandRunner.run(curl, ["-sS", "-H", "Content-Type: application/json", "-d", #"{"model":"minilm","input":"hello"}"#,
                                                    base.appending(path: "embeddings").absoluteString])
        #expect(embedded.stdout.contains(#""embedding""#), "\(embedded.stdout)")
        let metrics = try CommandRunner.run(curl, ["-sS", base.deletingLastPathComponent().appending(path: "metrics").absoluteString]).stdout
        let drafted = metrics.split(separator: "\n").first { $0.hasPrefix("llmkit_drafted_tokens_total ") }
        #expect((drafted?.split(separator: " ").last.flatMap { Int($0) } ?? 0) > 0, "\(metrics)")
        kill(process.processIdentifier, SIGTERM)
        let output = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        #expect(output.exitedNormally && output.status == 0, "\(output.stderr)")
    }

    @Test("serve --keep-alive unloads an idle model and loads it again for the next request; llmkit ps lists what is loaded")
    func keepAliveAndPs() throws {
        let smol = try ReferenceModel.chatURL().path, mtp = try ReferenceModel.multiTokenPredictionURL().path
        let (process, _, base) = try start(["--model", "smol=\(smol)", "--model", "mtp=\(mtp)", "--context", "512",
                                                 "--keep-alive", "2", "--api-key", "k-9"])
        defer { kill(process.processIdentifier, SIGKILL) }
        let ps = { try CommandRunner.llmkit(["ps", "--url", base.absoluteString, "--api-key", "k-9", "--json"]) }
        let both = try ps()
        #expect(both.status == 0, "\(both.stderr)")
        let loaded = try #require(JSONSerialization.jsonObject(with: Data(both.stdout.utf8)) as? [String: Any])
        let rows = try #require(loaded["models"] as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["name"] as? String }) == ["smol", "mtp"], "\(both.stdout)")
        #expect(rows.allSatisfy { ($0["size"] as? Int ?? 0) > 1 << 20 && $0["expires_at"] is String && $0["context_length"] as? Int == 512 })
        let table = try CommandRunner.llmkit(["ps", "--url", base.absoluteString, "--api-key", "k-9"])
        #expect(table.status == 0 && table.stdout.hasPrefix("NAME") && table.stdout.contains("smol"), "\(table.stdout)")
        // Idle past the keep-alive: both go.
        Thread.sleep(forTimeInterval: 3.5)
        let none = try ps()
        #expect(none.stdout.contains(#""models":[]"#), "\(none.stdout)")
        // A request loads its model again.
        let curl = URL(filePath: "/usr/bin/curl")
        let completion = try CommandRunner.run(curl, ["-sS", "-H", "Authorization: Bearer k-9", "-H", "Content-Type: application/json", "-d",
                                                      #"{"model":"smol","prompt":"The capital of France is","max_tokens":3,"temperature":0}"#,
                                                      base.appending(path: "completions").absoluteString])
        #expect(completion.stdout.contains(#""object":"text_completion""#), "\(completion.stdout)")
        let one = try ps()
        #expect(one.stdout.contains(#""name":"smol""#) && !one.stdout.contains(#""name":"mtp""#), "\(one.stdout)")
        let refused = try CommandRunner.llmkit(["ps", "--url", base.absoluteString])
        #expect(refused.status == 1 && refused.stderr.contains("401"), "\(refused.stderr)")
        let nobody = try CommandRunner.llmkit(["ps", "--url", "http://127.0.0.1:9/v1"])
        #expect(nobody.status == 1 && nobody.stderr.contains("no server answers"), "\(nobody.stderr)")
    }

    @Test("serve --alias names the one model, --chat-template replaces its template; a bad template stops it before it listens")
    func aliasAndChatTemplate() throws {
        let path = try ReferenceModel.chatURL().path
        let (process, reader, base) = try start(["--model", path, "--alias", "assistant", "--chat-template", "gemma"])
        let curl = URL(filePath: "/usr/bin/curl")
        let models = try CommandRunner.run(curl, ["-sS", base.appending(path: "models").absoluteString])
        #expect(models.stdout.contains(#""id":"assistant""#), "\(models.stdout)")
        let applied = try CommandRunner.run(curl, ["-sS", "-H", "Content-Type: application/json", "-d",
                                                   #"{"messages":[{"role":"user","content":"Hi"}]}"#,
                                                   base.deletingLastPathComponent().appending(path: "apply-template").absoluteString])
        #expect(applied.stdout.contains("<start_of_turn>user"), "\(applied.stdout)")
        kill(process.processIdentifier, SIGTERM)
        _ = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        let twoModels = try CommandRunner.llmkit(["serve", "--model", "a=\(path)", "--model", "b=\(path)", "--alias", "x"])
        #expect(twoModels.status == 2 && twoModels.stderr.contains("--alias names the one --model"), "\(twoModels.stderr)")
        let badTemplate = try CommandRunner.llmkit(["serve", "--model", path, "--chat-template", "no-such-template", "--port", "0"])
        #expect(badTemplate.status != 0 && badTemplate.stderr.contains("no-such-template"), "\(badTemplate.stderr)")
        #expect(!badTemplate.stderr.contains("listening on"), "\(badTemplate.stderr)")
    }

    @Test func badSettingsAreUsageErrors() throws {
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "llmkit-key-\(UUID().uuidString)")
        try "k".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        for arguments in [["--api-key", "a", "--api-key-file", keyFile.path], ["--port", "70000"], ["--parallel", "0"],
                          ["--api-key-file", "/nonexistent/key"]] {
            let output = try CommandRunner.llmkit(["serve"] + arguments)
            #expect(output.status == 2, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains("usage: llmkit serve"), "\(arguments)")
        }
    }

    @Test func aPortInUseIsARuntimeErrorNamingTheAddress() throws {
        let (process, reader, base) = try start([])
        defer {
            kill(process.processIdentifier, SIGTERM)
            _ = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        }
        let output = try CommandRunner.llmkit(["serve", "--port", String(base.port ?? 0)])
        #expect(output.status == 1)
        #expect(output.stderr.contains("cannot listen on 127.0.0.1:\(base.port ?? 0)"), "\(output.stderr)")
    }
}
