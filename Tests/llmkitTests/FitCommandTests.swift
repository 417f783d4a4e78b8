import Foundation
import LocalLLMKit
import Testing

/// `llmkit fit` and `--fit` through the real binary and SmolLM2, with simulated free memory.
@Suite("llmkit fit", .serialized)
struct FitCommandTests {
    /// An `$LLMKIT_HOME` of the test's own, so that kept plans stay out of the user's data folder.
    static func home() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-fit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("fit prints the plan, --json has every field, and a model that does not fit exits 1 with the numbers")
    func plans() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["LLMKIT_HOME": home.path]
        let model = try ReferenceModel.chatURL().path
        let text = try CommandRunner.llmkit(["fit", model, "--memory", "16G", "--margin", "64M"], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("8192 tokens per sequence") && text.stdout.contains("Host"), "\(text.stdout)")
        #expect(text.stdout.contains("per 1K tokens") && text.stdout.contains("fits"), "\(text.stdout)")
        let json = try CommandRunner.llmkit(["fit", model, "--memory", "330M", "--margin", "64M", "--min-context", "512", "--json"],
                                            environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let plan = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let context = try #require(plan["context_length"] as? Int)
        #expect(context >= 512 && context < 8192, "\(plan)")
        #expect(plan["fits"] as? Bool == true && (plan["cache_bytes_per_thousand_tokens"] as? Int ?? 0) > 0)
        let devices = try #require(plan["devices"] as? [[String: Any]])
        #expect(devices.last?["name"] as? String == "Host" && (devices.last?["weights"] as? Int ?? 0) > 0)
        #expect((plan["reasons"] as? [String])?.isEmpty == false)
        let tiny = try CommandRunner.llmkit(["fit", model, "--memory", "100M"], environment: environment)
        #expect(tiny.status == 1 && tiny.stdout.split(separator: "\n").contains { $0.hasPrefix("fits ") && $0.hasSuffix(" no") },
                "\(tiny.stdout)")
        #expect(tiny.stderr.contains("does not fit in memory: Host would need"), "\(tiny.stderr)")
        let bad = try CommandRunner.llmkit(["fit", model, "--memory", "lots"], environment: environment)
        #expect(bad.status == 2 && bad.stderr.contains("--memory"), "\(bad.stderr)")
    }

    @Test("run --fit loads with the plan and answers")
    func runFits() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let output = try CommandRunner.llmkit(["run", "--fit", "-m", try ReferenceModel.chatURL().path, "--temperature", "0",
                                               "-n", "4", "--json", "The capital of France is"],
                                              environment: ["LLMKIT_HOME": home.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appending(path: "fit-plans.json").path))
    }
}
