import Foundation
import LocalLLMKit
import Testing

/// The prompt cache on disk through the real binary, on by default: a later process whose prompt
/// starts with the same long system prompt starts from the first's evaluated prefix.
@Suite("llmkit's prompt cache")
struct PromptCacheCommandTests {
    private static let system = (1...40).map { "Rule \($0): answer about the lighthouse log only, in few words." }.joined(separator: " ")

    private static func arguments(_ question: String, flags: [String]) throws -> [String] {
        ["run", "-m", try ReferenceModel.chatURL().path, "--system", system, "-n", "6", "--temperature", "0", "--json", question] + flags
    }

    private static func report(_ output: CommandRunner.Output) throws -> [String: Any] {
        #expect(output.status == 0, "\(output.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    }

    private static func run(_ question: String, home: URL, flags: [String] = []) throws -> [String: Any] {
        try report(CommandRunner.llmkit(arguments(question, flags: flags), environment: ["LLMKIT_HOME": home.path]))
    }

    /// The names of the files under `folder` whose names end in `suffix`.
    private static func files(under folder: URL, suffix: String) -> [String] {
        FileManager.default.enumerator(atPath: folder.path)?.allObjects.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) } ?? []
    }

    @Test("by default later runs start warm and agree with each other; --no-prompt-cache; cache list and clear; speculation")
    func secondRunStartsWarm() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "llmkit-prompt-cache-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try Self.run("What is logged?", home: home)
        #expect(first["cached_prompt_tokens"] as? Int == 0 && (first["prompt_tokens"] as? Int ?? 0) > 300)
        let folder = home.appending(path: "cache/prompts")
        #expect(Self.files(under: folder, suffix: ".prompt").count == 1)

        // Two later processes start from the same entry: the same cached prefix, the same answer.
        let second = try Self.run("Who keeps it?", home: home)
        let third = try Self.run("Who keeps it?", home: home)
        #expect((second["cached_prompt_tokens"] as? Int ?? 0) > (second["prompt_tokens"] as? Int ?? 0) - 16, "\(second)")
        #expect(third["cached_prompt_tokens"] as? Int == second["cached_prompt_tokens"] as? Int)
        #expect(second["text"] as? String == third["text"] as? String && !(second["text"] as? String ?? "").isEmpty)
        // --no-prompt-cache neither reads nor writes; neither does speculation unless asked.
        let plain = try Self.run("Who keeps it?", home: home, flags: ["--no-prompt-cache"])
        #expect(plain["cached_prompt_tokens"] as? Int == 0)
        let speculating = try Self.run("Where is it kept?", home: home, flags: ["--lookup"])
        #expect(speculating["cached_prompt_tokens"] as? Int == 0)
        // Later runs evaluated too little to be written again: still the first run's entry alone.
        #expect(Self.files(under: folder, suffix: ".prompt").count == 1)
        let both = try CommandRunner.llmkit(["run", "--prompt-cache", "--no-prompt-cache", "-n", "2", "hi"], environment: ["LLMKIT_HOME": home.path])
        #expect(both.status == 2 && both.stderr.contains("contradict"), "\(both.stderr)")

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

    @Test("a restarted serve answers a request after the same system prompt warm; with --no-prompt-cache, cold")
    func serverRestartStartsWarm() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "llmkit-prompt-cache-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        func ask(_ question: String, flags: [String] = []) throws -> [String: Any] {
            let (process, reader, base) = try CommandRunner.startServing(
                ["--model", "chat=\(try ReferenceModel.chatURL().path)", "--no-library", "--parallel", "1"] + flags,
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
        let third = try ask("Who keeps it?", flags: ["--no-prompt-cache"])
        #expect((third["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int ?? 0 == 0, "\(third)")
    }

    @Test("two processes writing the same entry at once leave one valid entry, which a third process uses")
    func twoWritersLeaveOneEntry() throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "llmkit-prompt-cache-writers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["LLMKIT_HOME": home.path]
        let writers = try (0..<2).map { _ in
            try CommandRunner.launch(CommandRunner.llmkit(), Self.arguments("What is logged?", flags: []), stdin: nil, environment: environment)
        }
        let reports = try writers.map { try Self.report(CommandRunner.finish($0.0, $0.1, deadline: ContinuousClock.now + .seconds(300))) }
        #expect(reports.allSatisfy { $0["cached_prompt_tokens"] as? Int == 0 })
        #expect(reports[0]["text"] as? String == reports[1]["text"] as? String)
        let folder = home.appending(path: "cache/prompts")
        #expect(Self.files(under: folder, suffix: ".prompt").count == 1)
        #expect(Self.files(under: folder, suffix: ".partial").isEmpty)
        let reader = try Self.run("What is logged?", home: home)
        // (Its answer is not compared with the writers': a prefix from the cache may differ from a
        // whole prompt's evaluation in the last bits, as docs/chat.md says.)
        #expect((reader["cached_prompt_tokens"] as? Int ?? 0) > (reader["prompt_tokens"] as? Int ?? 0) - 16, "\(reader)")
    }
}
