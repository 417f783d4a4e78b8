import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// `llmkit serve`'s API through OpenAI's official Python client (`openai` from PyPI), against a
/// server over real models: Qwen2.5-Coder-0.5B-Instruct for chat, tools and structured output.
@Suite(.serialized) struct OpenAIClientTests {
    @Test func everyCheckOfTheOfficialClientPasses() async throws {
        let model = try await ServerHarness.toolModel()
        let server = try ServerHarness.serve(["qwen": model], .init(apiKey: "test-key-1234", maximumBodyBytes: 65536))
        let outcome = try await ServerHarness.python("openai_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "qwen", "--api-key", "test-key-1234",
            "--server", "llmkit", "--max-body", "65536",
        ])
        await server.stop()
        let summary = try #require(outcome.summary, "no JSON summary: \(outcome.output)\n\(outcome.errors)")
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let passed = summary["passed"] as? [String] ?? []
        #expect((summary["failed"] as? [Any])?.isEmpty == true, "\(summary)")
        // Every check but the 429 burst (its own test) ran and passed.
        for check in ["chat", "chat_stream", "tools", "tools_stream", "json_schema", "json_object", "models", "completions",
                      "seed", "stop", "max_tokens", "logprobs", "choices", "auth", "unknown_model", "bad_params", "http_errors", "oversize"] {
            #expect(passed.contains(check), "\(check) did not pass: \(summary)")
        }
    }

    @Test func aBurstPastTheQueueGets429WithRetryAfterAndTheRestComplete() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1, queue: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let outcome = try await ServerHarness.python("openai_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--server", "llmkit",
            "--only", "rate_limit", "--expect-429", "--parallel", "1", "--queue", "1",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect((outcome.summary?["passed"] as? [String]) == ["rate_limit"], "\(outcome.output)")
    }
}
