import Foundation
import LocalLLMKit

/// `llmkit show`: one model of the library, of a cache, or a file.
enum ShowCommand {
    static let spec = CommandSpec(
        name: "show",
        usage: "usage: llmkit show ID|PATH [--json]",
        help: """
        Show a model: a GGUF path, a library id or name, a catalog id, or a cache reference
        from `llmkit list`, found in the order that --model finds them (`llmkit run --help`).

          --json      print one JSON object
          -h, --help  show this help
        """,
        flagOptions: ["--json"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let name = arguments.positionals.first else { throw UsageError(message: "missing ID or PATH") }
        let library = ModelLibrary()
        var report: ModelReport
        switch try await ModelOptions.target(name, in: library) {
        case .entry(let entry) where entry.source == .library:
            guard let record = try await library.model(entry.id) else { throw ModelLibrary.Error.modelNotFound(entry.id) }
            report = ModelReport(record, in: library)
        case .entry(let entry):
            report = ModelReport(entry)
            report.describe(try GGUFFile(contentsOf: entry.url))
        case .file(let url):
            report = ModelReport(file: try GGUFFile(contentsOf: url))
        }
        if arguments.has("--json") {
            try Console.printJSON(report)
        } else {
            Console.printFields(report.fields)
        }
        return .success
    }
}
