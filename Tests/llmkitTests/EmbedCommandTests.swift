import Foundation
import Testing
import LocalLLMKit

/// `llmkit embed` and the library's embeddings against llama.cpp's own `llama-embedding`.
@Suite("llmkit embed", .serialized)
struct EmbedCommandTests {
    /// Twenty inputs: several languages and scripts, an empty text, one-token texts, digits,
    /// emoji, code and a long sentence.
    static let sentences = [
        "The quick brown fox jumps over the lazy dog.",
        "Le renard brun rapide saute par-dessus le chien paresseux.",
        "Der schnelle braune Fuchs springt über den faulen Hund.",
        "El rápido zorro marrón salta sobre el perro perezoso.",
        "敏捷的棕色狐狸跳过了懒狗。",
        "素早い茶色の狐がのろまな犬を飛び越える。",
        "Быстрая коричневая лиса перепрыгивает через ленивую собаку.",
        "الثعلب البني السريع يقفز فوق الكلب الكسول.",
        "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.",
        "",
        "a",
        "hello",
        "?!",
        "3.14159 2718 1e-9",
        "🦙 llamas 🚀 rockets ✅",
        "func add(_ a: Int, _ b: Int) -> Int { a + b }",
        "Café naïve résumé coöperate",
        "   leading and trailing spaces   ",
        "Retrieval works by embedding documents and queries into one vector space and comparing them.",
        String(repeating: "A long sentence that keeps going and going. ", count: 20),
    ]

    /// llama-embedding's vectors (L2-normalised, the model's pooling unless given) for `texts`.
    static func reference(_ texts: [String], model: URL, pooling: String? = nil, normalize: Bool = true) throws -> [[Double]] {
        let separator = "<#llmkit#>"
        var arguments = ["-m", model.path, "-p", texts.joined(separator: separator), "--embd-separator", separator,
                         "--embd-output-format", "json", "--embd-normalize", normalize ? "2" : "-1", "-t", "2"]
        if let pooling { arguments += ["--pooling", pooling] }
        let output = try CommandRunner.run(CommandRunner.llamaTool("llama-embedding"), arguments)
        try #require(output.status == 0, "llama-embedding failed: \(output.stderr.suffix(2000))")
        let json = try #require(output.stdout.firstIndex(of: "{").map { String(output.stdout[$0...]) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let data = try #require(object["data"] as? [[String: Any]])
        return try data.map { try #require($0["embedding"] as? [Double]) }
    }

    static func cosine(_ a: [Double], _ b: [Float]) -> Double {
        var dot = 0.0, x = 0.0, y = 0.0
        for (p, q) in zip(a, b) { dot += p * Double(q); x += p * p; y += Double(q) * Double(q) }
        return dot / (x.squareRoot() * y.squareRoot())
    }

    @Test("Library and CLI vectors equal llama-embedding's on 20 sentences (cosine ≥ 0.9999 each)")
    func parityWithLlamaEmbedding() async throws {
        let url = try ReferenceModel.embeddingURL()
        let expected = try Self.reference(Self.sentences, model: url)
        try #require(expected.count == Self.sentences.count)
        let model = try await LocalModel.load(from: url)
        let library = try await model.embeddings(for: Self.sentences)
        #expect(library.dimensions == 384)
        var worst = 1.0
        for (index, vector) in library.vectors.enumerated() {
            let similarity = Self.cosine(expected[index], vector)
            worst = min(worst, similarity)
            #expect(similarity >= 0.9999, "text \(index) \(Self.sentences[index].debugDescription): cosine \(similarity)")
        }
        // The CLI: one JSON array per stdin line, in order (the empty line is an input too).
        let output = try CommandRunner.llmkit(["embed"], stdin: Self.sentences.joined(separator: "\n") + "\n",
                                              environment: ["LLMKIT_EMBEDDING_MODEL": url.path])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        try #require(lines.count == Self.sentences.count)
        for (index, line) in lines.enumerated() {
            let vector = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Double])
            #expect(vector.count == 384)
            #expect(Self.cosine(vector, library.vectors[index]) >= 0.99999, "line \(index)")
        }
        print("embedding parity: worst cosine against llama-embedding \(worst) over \(Self.sentences.count) texts")
    }

    @Test("A decoder (SmolLM2) with last-token pooling equals llama-embedding --pooling last")
    func decoderParity() async throws {
        let url = try ReferenceModel.chatURL()
        let texts = Array(Self.sentences.prefix(4)) + ["a", "Retrieval works by embedding documents."]
        let expected = try Self.reference(texts, model: url, pooling: "last")
        let model = try await LocalModel.load(from: url)
        let vectors = try await model.embeddings(for: texts).vectors
        for (index, vector) in vectors.enumerated() {
            #expect(Self.cosine(expected[index], vector) >= 0.9999, "text \(index)")
        }
    }

    @Test("Daemon #2: a decoder's text longer than a unit, split over units, equals llama.cpp's whole decode (last and mean)")
    func splitTextParity() async throws {
        let url = try ReferenceModel.chatURL()
        let words = "river stone lantern orchard meadow copper whistle harbor velvet candle thunder maple".split(separator: " ")
        let long = (0..<900).map { String(words[($0 * 7) % words.count]) }.joined(separator: " ")
        let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 4096))
        // Last-token pooling: llama-embedding decodes the text in one llama_decode.
        let last = try await model.embeddings(for: [long])
        #expect(last.decodeCount > 1, "the text was not split: \(last.tokenCounts)")
        #expect(Self.cosine(try Self.reference([long], model: url, pooling: "last")[0], last.vectors[0]) >= 0.9999)
        // Mean pooling: llama.cpp pools a micro-batch only, so the reference is the mean of
        // its token vectors (pooling none, not normalised), normalised here.
        let tokens = try Self.reference([long], model: url, pooling: "none", normalize: false)
        var mean = [Double](repeating: 0, count: tokens[0].count)
        for vector in tokens { for index in vector.indices { mean[index] += vector[index] } }
        let split = try await model.embeddings(for: [long], options: .init(pooling: .mean))
        #expect(tokens.count == split.totalTokenCount)
        #expect(Self.cosine(mean, split.vectors[0]) >= 0.9999)
    }

    @Test("--json gives one document; --pooling, --no-normalize and --truncate reach the library")
    func jsonAndOptions() throws {
        let url = try ReferenceModel.embeddingURL()
        let environment = ["LLMKIT_EMBEDDING_MODEL": url.path]
        let long = Array(repeating: "word", count: 600).joined(separator: " ")
        let output = try CommandRunner.llmkit(["embed", "--json", "--pooling", "cls", "--no-normalize", "--truncate", "one", long],
                                              environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(object["dimensions"] as? Int == 384)
        #expect(object["pooling"] as? String == "cls")
        #expect(object["normalized"] as? Bool == false)
        #expect(object["truncated"] as? [Int] == [1])
        #expect(object["token_counts"] as? [Int] == [3, 512])
        let vectors = try #require(object["embeddings"] as? [[Double]])
        #expect(vectors.count == 2)
        let length = vectors[0].reduce(0) { $0 + $1 * $1 }.squareRoot()
        #expect(abs(length - 1) > 0.01, "--no-normalize left length \(length)")
    }

    @Test("Bad input: a typed one-line error and exit 1, or a usage error and exit 2; never a crash")
    func badInput() throws {
        let url = try ReferenceModel.embeddingURL()
        let environment = ["LLMKIT_EMBEDDING_MODEL": url.path]
        let long = Array(repeating: "word", count: 600).joined(separator: " ")
        let tooLong = try CommandRunner.llmkit(["embed", "short", long], environment: environment)
        #expect(tooLong.status == 1 && tooLong.exitedNormally)
        #expect(tooLong.stderr.contains("text 1 has 602 tokens") && tooLong.stderr.contains("at most 512"), "\(tooLong.stderr)")
        let empty = try CommandRunner.llmkit(["embed"], stdin: "", environment: environment)
        #expect(empty.status == 1 && empty.stderr.contains("nothing to embed"), "\(empty.stderr)")
        let pooling = try CommandRunner.llmkit(["embed", "--pooling", "max", "x"], environment: environment)
        #expect(pooling.status == 2 && pooling.stderr.contains("--pooling must be one of"), "\(pooling.stderr)")
        // An embedding model asked to generate says so instead of aborting.
        let run = try CommandRunner.llmkit(["run", "--model", url.path, "-n", "4", "--raw", "hi"])
        #expect(run.status == 1 && run.stderr.contains("cannot generate text"), "\(run.stderr)")
    }
}
