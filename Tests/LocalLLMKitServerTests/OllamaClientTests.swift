import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// Ollama's native API (`/api/chat`, `/api/generate`, `/api/embed`, `/api/embeddings`,
/// `/api/tags`, `/api/show`, `/api/ps`, `/api/version`) through Ollama's official Python client
/// (`ollama` from PyPI): whole and NDJSON-streamed answers, raw generation, JSON formats, a real
/// tool round on Qwen2.5-Coder-0.5B-Instruct, embeddings, listings, thinking on a thinking
/// template, `keep_alive` and typed errors.
@Suite(.serialized) struct OllamaClientTests {
    @Test func everyCheckOfTheOfficialClientPasses() async throws {
        let model = try await ServerHarness.toolModel()
        let server = try ServerHarness.serve(["qwen": model], .init(apiKey: "ollama-key-1"))
        let outcome = try await ServerHarness.python("ollama_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "qwen", "--api-key", "ollama-key-1",
        ])
        await server.stop()
        let summary = try #require(outcome.summary, "no JSON summary: \(outcome.output)\n\(outcome.errors)")
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let passed = summary["passed"] as? [String] ?? []
        for check in ["chat", "chat_stream", "generate", "format", "tools", "embed", "models", "errors"] {
            #expect(passed.contains(check), "\(check) did not pass: \(summary)")
        }
    }

    @Test func thinkingAndKeepAliveOnAModelLoadedOnDemand() async throws {
        let template = try String(contentsOf: URL(filePath: ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local")
            .appending(path: "share/llmkit/templates/Qwen3.5-4B.jinja"), encoding: .utf8)
        let source = ModelServer.Source(url: try ReferenceModel.chatURL(), configuration: .init(contextLength: 1024, parallelSequences: 1),
                                        chatTemplate: template)
        let server = try await ModelServer(sources: ["smollm": source], residency: LoadedModels(), configuration: .init(port: 0))
        let outcome = try await ServerHarness.python("ollama_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--think", "--unloadable", "--only", "think,keep_alive",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect((outcome.summary?["passed"] as? [String]).map(Set.init) == ["think", "keep_alive"], "\(outcome.output)")
    }
}
