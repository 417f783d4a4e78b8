import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// Anthropic's Messages API (`POST /v1/messages`, `/v1/messages/count_tokens`) through
/// Anthropic's official Python client (`anthropic` from PyPI), which authenticates with
/// `x-api-key`: messages, streaming events, a real tool round on Qwen2.5-Coder-0.5B-Instruct
/// (whole and streamed), token counts, thinking on a thinking template, and typed errors.
@Suite(.serialized) struct AnthropicClientTests {
    @Test func everyCheckOfTheOfficialClientPasses() async throws {
        let model = try await ServerHarness.toolModel()
        let server = try ServerHarness.serve(["qwen": model], .init(apiKey: "anthropic-key-1"))
        let outcome = try await ServerHarness.python("anthropic_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "qwen", "--api-key", "anthropic-key-1",
        ])
        await server.stop()
        let summary = try #require(outcome.summary, "no JSON summary: \(outcome.output)\n\(outcome.errors)")
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let passed = summary["passed"] as? [String] ?? []
        for check in ["messages", "stream", "tools", "tools_stream", "count_tokens", "errors"] {
            #expect(passed.contains(check), "\(check) did not pass: \(summary)")
        }
    }

    @Test func thinkingComesAsAThinkingBlockWithinItsBudget() async throws {
        let template = try String(contentsOf: URL(filePath: ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local")
            .appending(path: "share/llmkit/templates/Qwen3.5-4B.jinja"), encoding: .utf8)
        let source = ModelServer.Source(url: try ReferenceModel.chatURL(), configuration: .init(contextLength: 1024, parallelSequences: 1),
                                        chatTemplate: template)
        let server = try await ModelServer(sources: ["smollm": source], residency: LoadedModels(), configuration: .init(port: 0))
        let outcome = try await ServerHarness.python("anthropic_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--thinking", "--only", "thinking",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect((outcome.summary?["passed"] as? [String]) == ["thinking"], "\(outcome.output)")
    }
}
