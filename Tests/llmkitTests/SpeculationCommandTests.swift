import Foundation
import LocalLLMKit
import Testing

/// The speculative-decoding flags of `run`, `chat`, `bench` and `serve`, through the real binary
/// and Qwen2.5-Coder-0.5B (the bootstrap's Q2_K requantization of it as draft model).
@Suite("llmkit speculation flags", .serialized)
struct SpeculationCommandTests {
    static let editing = """
        Rename the variable `total` to `sum` in this function. Reply with the function only.

        def add_all(values):
            total = 0
            for value in values:
                total += value
            return total
        """

    static func qwen() throws -> String { try ReferenceModel.toolCallingURL().path }

    @Test("run --lookup and run --draft-model give the same text, and report their drafts")
    func runFlags() throws {
        let common = ["run", "-m", try Self.qwen(), "--temperature", "0", "-n", "60", "--json", Self.editing]
        let lookup = try CommandRunner.llmkit(Array(common.prefix(1)) + ["--lookup", "--draft-max", "6"] + common.dropFirst())
        let draft = try CommandRunner.llmkit(Array(common.prefix(1)) + ["-md", try ReferenceModel.speculativeDraftURL().path,
                                                                       "--spec-draft-n-max", "3", "--fixed-draft"] + common.dropFirst())
        #expect(lookup.status == 0 && draft.status == 0, "\(lookup.stderr) \(draft.stderr)")
        let a = try #require(JSONSerialization.jsonObject(with: Data(lookup.stdout.utf8)) as? [String: Any])
        let b = try #require(JSONSerialization.jsonObject(with: Data(draft.stdout.utf8)) as? [String: Any])
        #expect(a["text"] as? String == b["text"] as? String)
        for object in [a, b] {
            let drafted = try #require(object["drafted_tokens"] as? Int), accepted = try #require(object["accepted_draft_tokens"] as? Int)
            #expect(drafted > 0 && accepted > 0 && accepted <= drafted, "\(object)")
        }
        let stats = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--lookup", "--temperature", "0", "-n", "40", "--stats", Self.editing])
        #expect(stats.status == 0)
        #expect(stats.stderr.contains("drafts: ") && stats.stderr.contains("tokens accepted"), "\(stats.stderr)")
    }

    @Test("chat takes the flags too")
    func chatFlags() throws {
        let output = try CommandRunner.llmkit(["chat", "-m", try Self.qwen(), "--lookup", "--temperature", "0", "-n", "40", "--json",
                                               "--stats"], stdin: Self.editing.replacingOccurrences(of: "\n", with: " ") + "\n")
        #expect(output.status == 0, "\(output.stderr)")
        let line = try #require(output.stderr.split(separator: "\n").first { $0.contains("\"turn\"") }, "\(output.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((stats["drafted_tokens"] as? Int ?? 0) > 0 && (stats["accepted_draft_tokens"] as? Int ?? 0) > 0, "\(line)")
    }

    @Test("conflicting or incomplete flags are usage errors; a foreign draft model is a runtime error naming it")
    func badFlags() throws {
        let both = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--lookup", "--draft-model", "default", "hi"])
        #expect(both.status == 2 && both.stderr.contains("--lookup, --draft-model and --mtp"), "\(both.stderr)")
        let alone = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--draft-max", "4", "hi"])
        #expect(alone.status == 2 && alone.stderr.contains("--draft-max needs --draft-model, --lookup or --mtp"), "\(alone.stderr)")
        let fixedAlone = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--fixed-draft", "hi"])
        #expect(fixedAlone.status == 2 && fixedAlone.stderr.contains("--fixed-draft needs"), "\(fixedAlone.stderr)")
        let noLayers = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--mtp", "hi"])
        #expect(noLayers.status == 1 && noLayers.stderr.contains("next-token-prediction"), "\(noLayers.stderr)")
        let range = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--lookup", "--draft-max", "0", "hi"])
        #expect(range.status == 2, "\(range.stderr)")
        let foreign = try CommandRunner.llmkit(["run", "-m", try Self.qwen(), "--draft-model", try ReferenceModel.url().path, "hi"])
        #expect(foreign.status == 1 && foreign.stderr.contains("cannot draft for this model"), "\(foreign.stderr)")
    }

    @Test("run --mtp drafts with the model's own prediction layer and writes what run without it writes")
    func runMultiTokenPrediction() throws {
        let model = try ReferenceModel.multiTokenPredictionURL().path
        let common = ["-m", model, "--temperature", "0", "-n", "48", "--json", "def add(a, b):"]
        let plain = try CommandRunner.llmkit(["run"] + common)
        // This synthetic model rounds two rows differently from one: greedy exactness would draft
        // nothing (MultiTokenPredictionTests), so --inexact-greedy lets it draft.
        let mtp = try CommandRunner.llmkit(["run", "--mtp", "--fixed-draft", "--inexact-greedy"] + common)
        #expect(plain.status == 0 && mtp.status == 0, "\(plain.stderr) \(mtp.stderr)")
        let a = try #require(JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        let b = try #require(JSONSerialization.jsonObject(with: Data(mtp.stdout.utf8)) as? [String: Any])
        #expect(a["text"] as? String == b["text"] as? String)
        #expect(a["drafted_tokens"] as? Int == 0)
        #expect((b["accepted_draft_tokens"] as? Int ?? 0) > 0, "\(b)")
    }

    @Test("bench --speculative measures plain and speculative generation on its task set")
    func benchSpeculative() throws {
        let output = try CommandRunner.llmkit(["bench", "--speculative", "-m", try Self.qwen(), "--tasks", "rename-variable",
                                               "-r", "1", "--max-tokens", "40", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let rows = try #require(report["rows"] as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["task"] as? String == "rename-variable")
        #expect((rows[0]["plain_tokens_per_second"] as? Double ?? 0) > 0)
        #expect((rows[0]["speculative_tokens_per_second"] as? Double ?? 0) > 0)
        #expect((rows[0]["drafted_tokens"] as? Int ?? 0) > 0)
        #expect(rows[0]["identical"] as? Bool == true)
        #expect((report["speculation"] as? String ?? "").hasPrefix("prompt lookup"))
        let unknown = try CommandRunner.llmkit(["bench", "--speculative", "-m", try Self.qwen(), "--tasks", "poetry"])
        #expect(unknown.status == 2 && unknown.stderr.contains("poetry"), "\(unknown.stderr)")
    }
}
