import Foundation
import LocalLLMKit

/// `llmkit show`: one model of the library, of a cache, or a file.
enum ShowCommand {
    static let spec = CommandSpec(
        name: "show",
        usage: "usage: llmkit show ID|PATH [--json]",
        help: """
        Show a model: a library id or name, a cache reference from `llmkit list`, or a GGUF path.

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
        if let record = try await library.model(name) {
            report = ModelReport(record, in: library)
        } else if let entry = try await library.entry(named: name) {
            report = ModelReport(entry)
            report.describe(try GGUFFile(contentsOf: entry.url))
        } else {
            report = ModelReport(file: try GGUFFile(contentsOf: try await ModelOptions.locate(name)))
        }
        if arguments.has("--json") {
            try Console.printJSON(report)
        } else {
            Console.printFields(report.fields)
        }
        return .success
    }
}
