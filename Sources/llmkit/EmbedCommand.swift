import Foundation
import LocalLLMKit

/// `llmkit embed`: sentence vectors, one JSON array per input line.
enum EmbedCommand {
    static let spec = CommandSpec(
        name: "embed",
        usage: "usage: llmkit embed [--model M] [--pooling P] [--no-normalize] [--truncate] [--json] [--stats] [TEXT ...]",
        help: """
        Print the embedding vector of each TEXT, or, without TEXT (or with -), of each line of stdin:
        one JSON array of numbers per line (JSONL), in the order given.

          -m, --model MODEL    a GGUF path, or a library id or name; default: $LLMKIT_EMBEDDING_MODEL,
                               else all-MiniLM-L6-v2 installed by scripts/bootstrap-test (models/embedding.gguf).
                               A decoder (Qwen, Gemma, Llama) works too
              --pooling P      automatic (the model's own; default), mean, cls or last
              --no-normalize   print the vectors as pooled, not scaled to length 1
              --truncate       cut texts longer than the model reads (else they are an error)
              --json           one JSON document: {"model", "dimensions", "pooling", "normalized",
                               "token_counts", "truncated", "embeddings": [[…], …]}
              --stats          print texts, tokens, decodes and texts per second to stderr
          -t, --threads N      CPU threads (default: active cores)
          -c, --context N      longest text in tokens (default: the model's training length, at most 4096)
          -ngl, --gpu-layers N layers to offload to the GPU (default: all when a GPU backend exists)
          -v, --verbose        show llama.cpp's log on stderr
        \(Flag.help(ModelOptions.placement + ModelOptions.weights))
          -h, --help           show this help
        """,
        flags: ModelOptions.withoutFitting,
        valueOptions: ["--pooling"],
        flagOptions: ["--no-normalize", "--truncate", "--json", "--stats"],
        maximumPositionals: 1_000_000
    )

    /// Texts embedded per call, so that a long stdin prints as it goes.
    static let chunkSize = 1024

    /// The `--json` document.
    struct Document: Encodable {
        var model: String
        var dimensions: Int
        var pooling: String
        var normalized: Bool
        var tokenCounts: [Int]
        var truncated: [Int]
        var embeddings: [[Float]]
    }

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let pooling = try poolingOption(arguments)
        let options = LocalModel.EmbeddingOptions(pooling: pooling, normalizes: !arguments.has("--no-normalize"),
                                                  truncates: arguments.has("--truncate"))
        let texts = try inputTexts(arguments)
        if arguments.has("--verbose") { LlamaLog.logToStandardError(minimumLevel: .info) }
        var configuration = try ModelOptions.configuration(arguments)
        let url = if let name = arguments.value("--model") {
            try await ModelOptions.locate(name, addingAdaptersTo: &configuration)
        } else {
            try LocalModel.defaultEmbeddingModelURL()
        }
        let model = try await LocalModel.load(from: url, configuration: configuration)
        guard !texts.isEmpty else { throw LocalModel.EmbeddingError.emptyInput }
        let clock = ContinuousClock()
        let start = clock.now
        var document = Document(model: url.lastPathComponent, dimensions: model.embeddingDimensions, pooling: "",
                                normalized: options.normalizes, tokenCounts: [], truncated: [], embeddings: [])
        var decodes = 0
        var decoding = Duration.zero
        // In chunks, so that a long stdin prints as it goes (JSONL) and an error names the text
        // by its place in the whole input.
        for offset in stride(from: 0, to: texts.count, by: chunkSize) {
            let chunk = Array(texts[offset..<min(offset + chunkSize, texts.count)])
            let result: LocalModel.Embeddings
            do {
                result = try await model.embeddings(for: chunk, options: options)
            } catch let error as LocalModel.EmbeddingError {
                throw error.offsettingIndex(by: offset)
            }
            if let bad = result.vectors.firstIndex(where: { !$0.allSatisfy { $0.isFinite } }) {
                throw NonFiniteVector(index: bad + offset)
            }
            decodes += result.decodeCount
            decoding += result.decodingDuration
            document.pooling = result.pooling.rawValue
            document.tokenCounts += result.tokenCounts
            document.truncated += result.truncatedIndices.map { $0 + offset }
            if arguments.has("--json") {
                document.embeddings += result.vectors
            } else {
                Console.out(result.vectors.map { jsonArray($0) + "\n" }.joined())
                if !result.truncatedIndices.isEmpty {
                    Console.message("llmkit embed: truncated text \(result.truncatedIndices.map { String($0 + offset) }.joined(separator: ", "))")
                }
            }
        }
        if arguments.has("--json") { try Console.printJSONLine(document) }
        if arguments.has("--stats") {
            let elapsed = clock.now - start
            Console.err(String(format: "embedded %d texts (%d tokens) in %d decodes, %.3f s (decoding %.3f s): %.1f texts/s\n",
                               texts.count, document.tokenCounts.reduce(0, +), decodes, elapsed.seconds, decoding.seconds,
                               elapsed.rate(of: texts.count)))
        }
        return .success
    }

    /// `--pooling`, checked.
    static func poolingOption(_ arguments: ParsedArguments) throws -> LocalModel.Pooling {
        guard let value = arguments.value("--pooling") else { return .automatic }
        guard let pooling = LocalModel.Pooling(rawValue: value) else {
            throw UsageError(message: "--pooling must be one of \(LocalModel.Pooling.allCases.map(\.rawValue).joined(separator: ", ")), not '\(value)'")
        }
        return pooling
    }

    /// The TEXT arguments, or stdin's lines (without TEXT, or for `-`).
    static func inputTexts(_ arguments: ParsedArguments) throws -> [String] {
        try inputTexts(positionals: arguments.positionals)
    }

    /// `positionals`, or without any (or with `-`) the lines of stdin.
    static func inputTexts(positionals: [String]) throws -> [String] {
        if !positionals.isEmpty, positionals != ["-"] { return positionals }
        guard positionals == ["-"] || !Console.inputIsTerminal else {
            throw UsageError(message: "give TEXT, or pipe one text per line to stdin")
        }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputFileError(option: "stdin", reason: "the input is not UTF-8 text")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        if lines.last == "" { lines.removeLast() }     // the newline that ends the last line
        return lines
    }

    /// `vector` (finite) as a compact JSON array; every Float prints as the shortest text that
    /// reads back exactly.
    static func jsonArray(_ vector: [Float]) -> String {
        "[" + vector.map { "\($0)" }.joined(separator: ",") + "]"
    }

    /// A vector with NaN or infinity in it, which JSON cannot hold.
    struct NonFiniteVector: LocalizedError {
        let index: Int
        var errorDescription: String? {
            "the vector of text \(index) is not finite (NaN or infinity): the model's weights may be damaged"
        }
    }
}

extension LocalModel.EmbeddingError {
    /// The same error, with a text index counted from the start of the whole input.
    func offsettingIndex(by offset: Int) -> Self {
        switch self {
        case .noTokens(let index): .noTokens(index: index + offset)
        case .inputTooLong(let index, let count, let limit): .inputTooLong(index: index + offset, tokenCount: count, limit: limit)
        default: self
        }
    }
}
