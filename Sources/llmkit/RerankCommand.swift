import Foundation
import LocalLLMKit

/// `llmkit rerank`: documents scored against a query by a reranker, best first.
enum RerankCommand {
    static let spec = CommandSpec(
        name: "rerank",
        usage: "usage: llmkit rerank --model M [--top N] [--json] QUERY [DOCUMENT ...]",
        help: """
        Score each DOCUMENT (or, without any, each line of stdin) against QUERY with a reranker
        (a model with a ranking head) and print them best first, one per line: the score, the
        document's position among those given (from 0), and the document.

          -m, --model MODEL    a reranker: a GGUF path, or a library id or name
              --top N          print only the N best
              --json           one JSON document: {"model", "results": [{"index", "relevance_score",
                               "document"}, …], "tokens"}
          -t, --threads N      CPU threads (default: active cores)
          -c, --context N      longest query and document together, in tokens (default: the model's
                               training length, at most 4096)
          -ngl, --gpu-layers N layers to offload to the GPU (default: all when a GPU backend exists)
          -v, --verbose        show llama.cpp's log on stderr
        \(Flag.help(ModelOptions.placement + ModelOptions.weights))
          -h, --help           show this help
        """,
        flags: ModelOptions.withoutFitting,
        valueOptions: ["--top"],
        flagOptions: ["--json"],
        maximumPositionals: 1_000_000
    )

    /// The `--json` document.
    struct Document: Encodable {
        struct Result: Encodable {
            var index: Int
            var relevanceScore: Float
            var document: String
        }
        var model: String
        var results: [Result]
        var tokens: Int
    }

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let name = arguments.value("--model") else {
            throw UsageError(message: "rerank needs a reranker: give --model M (a model with a ranking head)")
        }
        guard let query = arguments.positionals.first else { throw UsageError(message: "missing QUERY") }
        let top = try arguments.integer("--top", in: 1...Int(Int32.max))
        let documents = try EmbedCommand.inputTexts(positionals: Array(arguments.positionals.dropFirst()))
        guard !documents.isEmpty else { throw UsageError(message: "no documents: give DOCUMENT arguments, or pipe one per line to stdin") }
        if arguments.has("--verbose") { LlamaLog.logToStandardError(minimumLevel: .info) }
        var configuration = try ModelOptions.configuration(arguments)
        let url = try await ModelOptions.locate(name, addingAdaptersTo: &configuration)
        let model = try await LocalModel.load(from: url, configuration: configuration)
        let ranking = try await model.rank(query: query, documents: documents)
        let shown = ranking.documents.prefix(top ?? documents.count)
        if arguments.has("--json") {
            try Console.printJSON(Document(model: url.lastPathComponent, results: shown.map {
                .init(index: $0.index, relevanceScore: $0.score, document: documents[$0.index])
            }, tokens: ranking.tokenCount))
        } else {
            for document in shown {
                Console.out("\(String(format: "%.6f", document.score))\t\(document.index)\t\(TerminalText.escaped(documents[document.index]))\n")
            }
        }
        return .success
    }
}
