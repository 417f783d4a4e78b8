import Foundation
import LocalLLMKit
import Testing

/// `--prompt-cache` through the real binary: a later process whose prompt starts with the same
/// long system prompt starts from the first's evaluated prefix.
@Suite("llmkit --prompt-cache")
struct PromptCacheCommandTests {
    private static let system = (1...40).map { "Rule \($0): answer about the lighthouse log only, in few words." }.joined(separator: " ")

    private static func run(_ question: String, home: URL, cache: Bool = true) throws -> [String: Any] {
        let output = try CommandRunner.llmkit(["run", "-m", try ReferenceModel.chatURL().path, "--system", system, "-n", "6",
                                               "--temperature", "0", "--json", question] + (cache ? ["--prompt-cache"] : []),
                                              environment: ["LLMKIT_HOME": home.path])
        #expect(output.status == 0, "\(output.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    }

    @Test("later runs start warm from the cache folder and agree with each other; cache list and clear; speculation with it is refused")
    func secondRunStartsWarm() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "llmkit-prompt-cache-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try Self.run("What is logged?", home: home)
        #expect(first["cached_prompt_tokens"] as? Int == 0 && (first["prompt_tokens"] as? Int ?? 0) > 300)
        let folder = home.appending(path: "cache/prompts")
        let entries = FileManager.default.enumerator(atPath: folder.path)?.allObjects.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".prompt") } ?? []
        #expect(entries.count == 1, "\(entries)")

        // Two later processes start from the same entry: the same cached prefix, the same answer.
        let second = try Self.run("Who keeps it?", home: home)
        let third = try Self.run("Who keeps it?", home: home)
        #expect((second["cached_prompt_tokens"] as? Int ?? 0) > (second["prompt_tokens"] as? Int ?? 0) - 16, "\(second)")
        #expect(third["cached_prompt_tokens"] as? Int == second["cached_prompt_tokens"] as? Int)
        #expect(second["text"] as? String == third["text"] as? String && !(second["text"] as? String ?? "").isEmpty)
        let plain = try Self.run("Who keeps it?", home: home, cache: false)
        #expect(plain["cached_prompt_tokens"] as? Int == 0)

        // `llmkit cache` lists the entry and clears it, leaving what is not an entry.
        let environment = ["LLMKIT_HOME": home.path]
        let listed = try CommandRunner.llmkit(["cache", "list", "--json"], environment: environment)
        let rows = listed.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rows.count == 1 && (rows.first?["tokens"] as? Int ?? 0) > 300 && (rows.first?["bytes"] as? Int ?? 0) > 1 << 20, "\(listed.stdout)")
        let keyFolder = try #require(FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).first)
        let notes = keyFolder.appending(path: "notes.txt")
        try "mine".write(to: notes, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: keyFolder.appending(path: "link.prompt"), withDestinationURL: notes)
        let cleared = try CommandRunner.llmkit(["cache", "clear"], environment: environment)
        #expect(cleared.status == 0 && cleared.stderr.contains("removed 1 entries"), "\(cleared.stderr)")
        #expect(try CommandRunner.llmkit(["cache", "list", "--json"], environment: environment).stdout.isEmpty)
        #expect(try String(contentsOf: notes, encoding: .utf8) == "mine")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: keyFolder.appending(path: "link.prompt").path)) != nil)
        #expect(try CommandRunner.llmkit(["cache", "empty"], environment: environment).status == 2)

        let refused = try CommandRunner.llmkit(["run", "--prompt-cache", "--lookup", "-n", "2", "hi"], environment: ["LLMKIT_HOME": home.path])
        #expect(refused.status == 1 && refused.stderr.contains("--prompt-cache") && refused.stderr.contains("speculation"), "\(refused.stderr)")
    }

    @Test("a restarted serve --prompt-cache answers a request after the same system prompt warm")
    func serverRestartStartsWarm() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "llmkit-prompt-cache-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        func ask(_ question: String) throws -> [String: Any] {
            let (process, reader, base) = try CommandRunner.startServing(
                ["--model", "chat=\(try ReferenceModel.chatURL().path)", "--no-library", "--prompt-cache", "--parallel", "1"],
                environment: ["LLMKIT_HOME": home.path])
            let body = try JSONSerialization.data(withJSONObject: [
                "model": "chat", "max_tokens": 4, "temperature": 0,
                "messages": [["role": "system", "content": Self.system], ["role": "user", "content": question]],
            ] as [String: Any])
            let reply = try CommandRunner.run(URL(filePath: "/usr/bin/curl"), [
                "-sS", "-H", "Content-Type: application/json", "--data-binary", String(decoding: body, as: UTF8.self),
                base.appending(path: "chat/completions").absoluteString,
            ])
            kill(process.processIdentifier, SIGTERM)
            #expect(CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60)).status == 0)
            let answer = try #require(JSONSerialization.jsonObject(with: Data(reply.stdout.utf8)) as? [String: Any], "\(reply.stdout)")
            return try #require(answer["usage"] as? [String: Any], "\(answer)")
        }
        let first = try ask("What is logged?")
        #expect((first["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int ?? 0 == 0, "\(first)")
        let second = try ask("Who keeps it?")
        let cached = (second["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int ?? 0
        #expect(cached > (second["prompt_tokens"] as? Int ?? 0) - 16, "\(second)")
    }
}
