import Foundation
import Testing
@testable import LocalLLMKitEngine

/// ``LocalModel/rank(query:documents:)`` on the synthetic reranker (MiniLM with a seeded-random
/// ranking head): order, packing, and the errors of models and inputs it cannot rank.
@Suite("Reranking")
struct RankingTests {
    static let documents = ["Giant pandas eat bamboo.", "Paris is the capital of France.", "", "Pandas is a Python library.",
                            "Bamboo grows fast."]

    @Test("documents come back best first, each scored as it is alone (to the last bits that packing moves)")
    func orderAndPacking() async throws {
        let model = try await LocalModel.load(from: ReferenceModel.rerankerURL())
        let ranking = try await model.rank(query: "What do pandas eat?", documents: Self.documents)
        #expect(ranking.documents.count == Self.documents.count)
        #expect(Set(ranking.documents.map(\.index)) == Set(Self.documents.indices))
        #expect(zip(ranking.documents, ranking.documents.dropFirst()).allSatisfy { $0.score >= $1.score })
        #expect(ranking.tokenCount > Self.documents.count * 5)
        for (index, document) in Self.documents.enumerated() {
            let alone = try await model.rank(query: "What do pandas eat?", documents: [document])
            #expect(abs(alone.scores[0] - ranking.scores[index]) < 1e-3, "document \(index)")
        }
        // Another query scores the same documents differently: the query is read.
        let other = try await model.rank(query: "capital cities of Europe", documents: Self.documents)
        #expect(other.scores != ranking.scores)
    }

    @Test("a model without a ranking head, no documents and a pair over the input length are typed errors")
    func errors() async throws {
        let embedder = try await LocalModel.load(from: ReferenceModel.embeddingURL())
        await #expect {
            _ = try await embedder.rank(query: "q", documents: ["a"])
        } throws: { error in
            guard case LocalModel.EmbeddingError.cannotRank(_, let reason) = error else { return false }
            return reason.contains("no ranking head")
        }
        let reranker = try await LocalModel.load(from: ReferenceModel.rerankerURL(), configuration: .init(contextLength: 64))
        await #expect(throws: LocalModel.EmbeddingError.emptyInput) {
            _ = try await reranker.rank(query: "q", documents: [])
        }
        await #expect {
            _ = try await reranker.rank(query: "q", documents: ["short", String(repeating: "word ", count: 100)])
        } throws: { error in
            guard case LocalModel.EmbeddingError.inputTooLong(let index, _, let limit) = error else { return false }
            return index == 1 && limit == 64
        }
        // Embedding with the reranker's own (rank) pooling says what to do instead.
        await #expect {
            _ = try await reranker.embeddings(for: ["a"])
        } throws: { error in
            guard case LocalModel.EmbeddingError.unsupportedPooling(_, _, _, let reason) = error else { return false }
            return reason.contains("rank(query:documents:)")
        }
    }

    @Test("a head of the wrong width, and a rank-pooling file without a head, are typed errors; the process lives on", arguments: [
        ["--head-width", "387"], ["--no-head"],
    ])
    func hostileHeads(flags: [String]) async throws {
        let folder = try TemporaryDirectory()
        let output = folder.file("hostile.gguf")
        let models = try ReferenceModel.embeddingURL().deletingLastPathComponent()
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../../scripts/synth-reranker-model")
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.standardized.path, "--embedding-model", models.appending(path: "all-MiniLM-L6-v2-f16.gguf").path,
                             "--output", output.path] + flags
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = models.deletingLastPathComponent().appending(path: "python-convert").path
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        await #expect {
            let model = try await LocalModel.load(from: output)
            _ = try await model.rank(query: "q", documents: ["a"])
        } throws: { error in
            switch error {
            case LocalModel.Error.modelLoadFailed(_, let reason): return reason.contains("cls.output.weight")
            case LocalModel.EmbeddingError.cannotRank(_, let reason): return reason.contains("no ranking head")
            default: return false
            }
        }
    }
}
