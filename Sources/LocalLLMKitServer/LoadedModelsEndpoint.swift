import Foundation
import LocalLLMKit

extension ModelServer {
    /// `GET /v1/ps` (also `/api/ps`, ollama's path): the models loaded now, by their served names,
    /// with what they hold and when they will be unloaded if idle, in ollama's shape (`name`, `model`, `size`,
    /// `expires_at`) plus `loaded_at`, `last_used`, `context_length` and `parallel_sequences`.
    func listLoadedModels(_ exchange: HTTPExchange) async -> Int {
        var rows: [OrderedJSON] = []
        if let residency {
            let resident = await residency.entries
            for entry in models {
                guard let source = entry.source,
                      let held = resident.first(where: { $0.url == source.url && $0.configuration == source.configuration })
                else { continue }
                rows.append(Self.row(name: entry.id, model: held.model, size: held.memoryBytes, held: held))
            }
        } else {
            for served in models.compactMap(\.loaded) {
                let model = served.model
                let size = model.memoryPlan.map { $0.limitingDevices.map(\.used).reduce(0, +) } ?? model.file.fileSize
                rows.append(Self.row(name: served.id, model: model, size: size, held: nil))
            }
        }
        return succeed(exchange, .object([("models", .array(rows))]))
    }

    private static func row(name: String, model: LocalModel, size: Int64, held: LoadedModels.Entry?) -> OrderedJSON {
        .object([
            // The served name, never the file's path: clients need not learn this machine's folders.
            ("name", .string(name)), ("model", .string(name)), ("size", .integer(Int(size))),
            ("expires_at", held?.expiresAt.map { .string(timestamp($0)) } ?? .null),
            ("loaded_at", held.map { .string(timestamp($0.loadedAt)) } ?? .null),
            ("last_used", held.map { .string(timestamp($0.lastUsed)) } ?? .null),
            ("context_length", .integer(model.contextLength)),
            ("parallel_sequences", .integer(model.configuration.serving.parallelSequences)),
        ])
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
