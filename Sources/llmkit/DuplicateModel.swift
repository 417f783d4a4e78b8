import Foundation
import LocalLLMKit

/// What `llmkit pull` and `llmkit import` do with a model that was already in the library.
enum DuplicateModel {
    /// When `addition` found its model already in the library, says so on stderr
    /// (`already in the library as ID`) and, given `name`, renames the model to it, so that
    /// `--name` is never ignored.
    /// - Returns: the record to print: the renamed one, or the addition's.
    /// - Throws: ``ModelLibrary/Error`` when the rename fails.
    static func report(_ addition: ModelLibrary.Addition, name: String?, in library: ModelLibrary) async throws -> ModelLibrary.Record {
        guard addition.wasAlreadyInLibrary else { return addition.record }
        var record = addition.record
        var text = "already in the library as \(record.id)"
        if let name {
            let previous = record.name
            record = try await library.rename(record.id, to: name)
            if record.name != previous { text += "; renamed from \(previous) to \(record.name)" }
        }
        Console.message(text)
        return record
    }
}
