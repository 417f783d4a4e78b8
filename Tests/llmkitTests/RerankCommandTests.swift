import Foundation
import Testing

/// `llmkit rerank`: documents from arguments or stdin, best first, `--top`, `--json`, and the
/// errors of a model that is no reranker.
@Suite("llmkit rerank")
struct RerankCommandTests {
    @Test("prints score, index and document, best first; --top and --json; stdin lines as documents")
    func output() throws {
        let model = try ReferenceModel.rerankerURL().path
        let documents = ["Giant pandas eat bamboo.", "Paris is the capital of France.", "Pandas is a Python library."]
        let plain = try CommandRunner.llmkit(["rerank", "-m", model, "What do pandas eat?"] + documents)
        #expect(plain.status == 0, "\(plain.stderr)")
        let lines = plain.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(lines.count == 3)
        let scores = lines.compactMap { Double($0[0]) }
        #expect(scores == scores.sorted(by: >) && scores.count == 3)
        #expect(Set(lines.compactMap { Int($0[1]) }) == [0, 1, 2])
        #expect(lines.allSatisfy { documents[Int($0[1])!] == String($0[2]) })

        let piped = try CommandRunner.llmkit(["rerank", "-m", model, "--top", "2", "--json", "What do pandas eat?"],
                                             stdin: documents.joined(separator: "\n") + "\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(piped.stdout.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 2)
        #expect(results.map { $0["index"] as? Int } == lines.prefix(2).map { Int($0[1]) })
        #expect((object["tokens"] as? Int ?? 0) > 0)
    }

    @Test("an embedding model without a ranking head exits 1 saying so; no --model or no query exits 2")
    func errors() throws {
        let noHead = try CommandRunner.llmkit(["rerank", "-m", try ReferenceModel.embeddingURL().path, "q", "a"])
        #expect(noHead.status == 1 && noHead.stderr.contains("no ranking head"), "\(noHead.stderr)")
        let noModel = try CommandRunner.llmkit(["rerank", "q", "a"])
        #expect(noModel.status == 2 && noModel.stderr.contains("--model"), "\(noModel.stderr)")
        let noQuery = try CommandRunner.llmkit(["rerank", "-m", try ReferenceModel.rerankerURL().path])
        #expect(noQuery.status == 2 && noQuery.stderr.contains("QUERY"), "\(noQuery.stderr)")
    }
}
