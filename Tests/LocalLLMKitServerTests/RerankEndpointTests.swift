import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// `POST /v1/rerank` (and `/rerank`) against llama-server `--reranking` on the same reranker
/// file (scripts/synth-reranker-model: MiniLM with a seeded-random ranking head), through
/// Support/rerank_parity.py, which starts llama-server.
@Suite(.serialized) struct RerankEndpointTests {
    @Test func scoresEqualLlamaServersAndAModelWithoutAHeadIsRefused() async throws {
        let reranker = try await LocalModel.load(from: ReferenceModel.rerankerURL())
        let embedder = try await ServerHarness.embeddingModel()
        let server = try ServerHarness.serve(["reranker": reranker, "minilm": embedder])
        let outcome = try await ServerHarness.python("rerank_parity.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "reranker",
            "--model-file", try ReferenceModel.rerankerURL().path, "--embedding-model", "minilm",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect(outcome.summary?["compared"] as? Int ?? 0 >= 30, "\(outcome.output)")
        #expect(outcome.summary?["largest_difference"] as? Double ?? 1 <= 1e-4, "\(outcome.output)")
    }
}
