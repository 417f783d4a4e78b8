import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Embeddings through the real libllama and all-MiniLM-L6-v2 (and SmolLM2, a decoder).
@Suite("Embeddings", .serialized)
struct EmbeddingTests {
    static func minilm(_ configuration: LocalModel.Configuration = .init()) async throws -> LocalModel {
        try await LocalModel.load(from: ReferenceModel.embeddingURL(), configuration: configuration)
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }

    @Test("MiniLM embeds with its own mean pooling: 384 normalised dimensions, many texts to a decode")
    func ownPooling() async throws {
        let model = try await Self.minilm()
        let texts = (0..<40).map { "Sentence number \($0) about the weather." }
        let result = try await model.embeddings(for: texts)
        #expect(result.pooling == .mean)
        #expect(result.dimensions == 384)
        #expect(result.vectors.count == 40)
        #expect(result.isNormalized)
        for vector in result.vectors {
            #expect(vector.count == 384)
            #expect(abs(Self.dot(vector, vector) - 1) < 1e-4)
        }
        // Packed: 40 short texts fit one decode (512 tokens, 256 sequences).
        #expect(result.totalTokenCount <= 512)
        #expect(result.decodeCount == 1)
        #expect(result.tokenCounts.allSatisfy { $0 > 2 })
        #expect(result.truncatedIndices.isEmpty)
        // Different texts, different vectors; the same text alone, the same vector up to the
        // rounding of another batch shape (measured: cosine 1 - 1.2e-7, components within 7.8e-5).
        let again = try await model.embedding(for: texts[3])
        #expect(Self.dot(again, result.vectors[3]) > 0.99999)
        #expect(Self.dot(result.vectors[0], result.vectors[1]) < 0.9999)
    }

    @Test("Paraphrases rank above unrelated sentences")
    func paraphrasesRankFirst() async throws {
        let model = try await Self.minilm()
        let pairs = [
            ("A man is playing a guitar.", "Someone plays the guitar."),
            ("The cat is sleeping on the sofa.", "A cat naps on the couch."),
            ("How do I reset my password?", "I forgot my password and need to change it."),
            ("The stock market fell sharply today.", "Share prices dropped a lot today."),
            ("She is cooking pasta for dinner.", "She makes spaghetti for the evening meal."),
        ]
        let queries = try await model.embeddings(for: pairs.map(\.0)).vectors
        let candidates = try await model.embeddings(for: pairs.map(\.1)).vectors
        for (index, query) in queries.enumerated() {
            let ranked = try VectorSimilarity.mostSimilar(to: query, in: candidates, count: candidates.count)
            #expect(ranked.first?.offset == index, "query \(index) ranked \(ranked.map(\.offset))")
            #expect(ranked[0].score > ranked[1].score)
        }
    }

    @Test("Pooling can be chosen; un-normalised vectors keep their length")
    func explicitPooling() async throws {
        let model = try await Self.minilm()
        let text = ["Pooling changes the vector."]
        let mean = try await model.embeddings(for: text, options: .init(pooling: .mean, normalizes: false))
        let cls = try await model.embeddings(for: text, options: .init(pooling: .cls))
        let last = try await model.embeddings(for: text, options: .init(pooling: .last))
        #expect(mean.pooling == .mean && cls.pooling == .cls && last.pooling == .last)
        #expect(!mean.isNormalized)
        #expect(abs(Self.dot(mean.vectors[0], mean.vectors[0]) - 1) > 0.01)
        let normalizedMean = LocalModel.normalized(mean.vectors[0])
        let automatic = try await model.embedding(for: text[0])
        #expect(zip(normalizedMean, automatic).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(Self.dot(cls.vectors[0], automatic) < 0.999)
        #expect(Self.dot(last.vectors[0], cls.vectors[0]) < 0.999)
    }

    @Test("An over-long text is a typed error, or is cut when asked, and the result says so")
    func overLongInput() async throws {
        let model = try await Self.minilm()
        #expect(model.embeddingInputLimit == 512)
        let long = Array(repeating: "word", count: 700).joined(separator: " ")
        await #expect(throws: LocalModel.EmbeddingError.inputTooLong(index: 1, tokenCount: 702, limit: 512)) {
            try await model.embeddings(for: ["short", long])
        }
        let result = try await model.embeddings(for: ["short", long], options: .init(truncates: true))
        #expect(result.truncatedIndices == [1])
        #expect(result.tokenCounts[1] == 512)
        // The cut text kept its closing [SEP]: it equals the text cut to 510 words.
        let cut = Array(repeating: "word", count: 510).joined(separator: " ")
        let reference = try await model.embedding(for: cut)
        #expect(zip(reference, result.vectors[1]).allSatisfy { abs($0 - $1) < 1e-4 })
    }

    @Test("Empty batches, empty texts and special-token-only texts")
    func emptyInputs() async throws {
        let model = try await Self.minilm()
        await #expect(throws: LocalModel.EmbeddingError.emptyInput) { try await model.embeddings(for: []) }
        // BERT adds [CLS] and [SEP]: an empty text still has two tokens, and a vector.
        let empty = try await model.embeddings(for: [""])
        #expect(empty.tokenCounts == [2])
        #expect(abs(Self.dot(empty.vectors[0], empty.vectors[0]) - 1) < 1e-4)
    }

    @Test("A text with no tokens (empty, with a model that adds no special tokens) is a typed error naming it")
    func textWithoutTokens() async throws {
        // Qwen2.5 adds no beginning-of-sequence token: an empty text tokenizes to nothing.
        let model = try await LocalModel.load(from: ReferenceModel.toolCallingURL(), configuration: .init(contextLength: 512))
        await #expect(throws: LocalModel.EmbeddingError.noTokens(index: 1)) {
            try await model.embeddings(for: ["fine", ""])
        }
    }

    @Test("A model whose pooling metadata llama.cpp would abort on gives a typed error; explicit pooling still works")
    func corruptPoolingMetadata() async throws {
        let folder = try TemporaryDirectory()
        let copy = folder.file("minilm-pooling-9.gguf")
        try GGUFRewriter.copy(ReferenceModel.embeddingURL(), to: copy, settingUInt32: "bert.pooling_type", to: 9)
        let model = try await LocalModel.load(from: copy)
        await #expect(throws: LocalModel.EmbeddingError.self) { try await model.embeddings(for: ["hello"]) }
        do {
            _ = try await model.embeddings(for: ["hello"])
        } catch let error as LocalModel.EmbeddingError {
            guard case .unsupportedPooling(_, let key, let value, _) = error else { Issue.record("\(error)"); return }
            #expect(key == "bert.pooling_type" && value == "9")
            #expect(error.localizedDescription.contains("bert.pooling_type = 9"))
        }
        let explicit = try await model.embeddings(for: ["hello"], options: .init(pooling: .mean))
        #expect(explicit.dimensions == 384)
        // Rank pooling (a reranker) is refused as well, by name.
        let rank = folder.file("minilm-pooling-rank.gguf")
        try GGUFRewriter.copy(ReferenceModel.embeddingURL(), to: rank, settingUInt32: "bert.pooling_type", to: 4)
        let reranker = try await LocalModel.load(from: rank)
        await #expect(throws: LocalModel.EmbeddingError.self) { try await reranker.embeddings(for: ["hello"]) }
    }

    @Test("An embedding model loads but cannot generate: a typed error, not an abort")
    func encoderCannotGenerate() async throws {
        let model = try await Self.minilm()
        #expect(model.file.generationProblem != nil)
        await #expect(throws: LocalModel.Error.self) {
            _ = try await model.complete("Hello", options: .init(maximumResponseTokens: 4))
        }
        do {
            _ = try await model.complete("Hello", options: .init(maximumResponseTokens: 4))
        } catch let error as LocalModel.Error {
            guard case .cannotGenerate = error else { Issue.record("\(error)"); return }
        }
        // And a vocabulary-only model cannot embed.
        let vocabulary = try await Self.minilm(.init(vocabularyOnly: true))
        await #expect(throws: LocalModel.EmbeddingError.self) { try await vocabulary.embeddings(for: ["hello"]) }
    }

    @Test("A decoder (SmolLM2) embeds with last-token pooling by default, or mean")
    func decoderModel() async throws {
        let model = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(contextLength: 1024))
        let texts = ["The weather is lovely today.", "It is sunny and warm outside.", "Quantum chromodynamics describes quarks."]
        let last = try await model.embeddings(for: texts)
        #expect(last.pooling == .last)
        #expect(last.dimensions == Int(model.file.metadata["llama.embedding_length"]?.intValue ?? -1))
        let mean = try await model.embeddings(for: texts, options: .init(pooling: .mean))
        #expect(mean.pooling == .mean)
        #expect(Self.dot(last.vectors[0], mean.vectors[0]) < 0.999)
        // The decoder still generates beside its embedding context.
        let text = try await model.complete("The capital of France is", options: .init(maximumResponseTokens: 4))
        #expect(!text.content.isEmpty)
    }

    @Test("Cancelling the calling task stops between decodes")
    func cancellation() async throws {
        let model = try await Self.minilm()
        let texts = (0..<3000).map { "This is sentence \($0), with a few more words to make it longer." }
        let task = Task { try await model.embeddings(for: texts) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The model still works afterwards.
        #expect(try await model.embedding(for: "still fine").count == 384)
    }
}
