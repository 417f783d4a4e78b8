import Foundation
import LocalLLMKit

/// `llmkit rm`: deletes a model of the library.
enum RemoveCommand {
    static let spec = CommandSpec(
        name: "rm",
        usage: "usage: llmkit rm ID",
        help: """
        Delete a model of the library, by id or name, found in the order that --model finds
        it (`llmkit run --help`); a catalog id deletes the library's copy of that model.
        Models of the Hugging Face and Ollama caches and the bootstrap's are never deleted.

          -h, --help  show this help
        """,
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let name = arguments.positionals.first else { throw UsageError(message: "missing ID") }
        let library = ModelLibrary()
        // The library's lookup order: a catalog id removes the library model with its SHA-256.
        let record: ModelLibrary.Record
        do {
            record = try await library.delete(name)
        } catch ModelLibrary.Error.modelNotFound where ModelCatalog.entry(name) == nil {
            throw ModelNameError(name: name, nearest: Suggestion.nearestNames(to: name, among: await library.knownNames()))
        }
        Console.message("removed \(record.id) (\(record.name)), \(ByteCount.format(record.bytes)) freed")
        return .success
    }
}
