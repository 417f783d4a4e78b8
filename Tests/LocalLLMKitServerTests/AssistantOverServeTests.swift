import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// An ``Assistant`` whose remote tier is this package's own server (`llmkit serve`'s
/// ``ModelServer``) over Qwen2.5-Coder-0.5B, behind a local tier whose model is missing.
@Suite("Assistant over llmkit serve")
struct AssistantOverServeTests {
    struct Capital: Decodable, Sendable, Equatable {
        var country: String
        var capital: String
    }

    @Test("a missing local model falls back to the served one, which answers with json_schema")
    func fallsBackToServe() async throws {
        let server = try ServerHarness.serve(["qwen": try await ServerHarness.toolModel(parallel: 1, context: 1024)])
        let remote = RemoteBackend(model: try RemoteModel(baseURL: server.baseURL, model: "qwen"))
        let assistant = Assistant(tiers: [.init(LocalBackend(url: URL(filePath: "/nonexistent/qwen.gguf"))),
                                          .init(remote, timeout: .seconds(120))],
                                  instructions: "Give the country's capital as JSON with the fields country and capital.",
                                  examples: [(input: "Japan", output: #"{"country": "Japan", "capital": "Tokyo"}"#)])
        #expect(try await assistant.currentTier().index == 1)
        let answer = try await assistant.respond(to: "France", generating: Capital.self, options: .greedy(maximumResponseTokens: 40))
        #expect(answer.tier == 1 && answer.backendName == remote.name)
        #expect(answer.content == Capital(country: "France", capital: "Paris"), "\(answer.response.text)")
        guard case .unavailable(let reason) = answer.skipped.first?.reason else { Issue.record("\(answer.skipped)"); return }
        #expect(reason.contains("not found"), "\(reason)")
        await server.stop(drainingFor: .seconds(1))
    }
}
