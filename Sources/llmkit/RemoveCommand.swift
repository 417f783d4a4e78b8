import Foundation
import LocalLLMKit

/// `llmkit rm`: deletes a model of the library.
enum RemoveCommand {
    static let spec = CommandSpec(
        name: "rm",
        usage: "usage: llmkit rm ID",
        help: """
        Delete a model of the library, by id or name. Models of the Hugging Face and
        Ollama caches are never deleted.

          -h, --help  show this help
        """,
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let name = arguments.positionals.first else { throw UsageError(message: "missing ID") }
        let library = ModelLibrary()
        // A catalog id removes the library model it was downloaded as.
        var target = name
        if let catalogEntry = ModelCatalog.entry(name), let installed = try await library.installed(catalogEntry),
           installed.source == .library {
            target = installed.id
        }
        let record: ModelLibrary.Record
        do {
            record = try await library.delete(target)
        } catch ModelLibrary.Error.modelNotFound {
            throw ModelNameError(name: name, nearest: Suggestion.nearestNames(to: name, among: await library.knownNames()))
        }
        Console.message("removed \(record.id) (\(record.name)), \(ByteCount.format(record.bytes)) freed")
        return .success
    }
}
