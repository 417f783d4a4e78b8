import Foundation
import LocalLLMKit

/// `llmkit list --catalog`: the models LocalLLMKit knows, whether each is installed, and the one
/// recommended for this machine's available memory.
enum CatalogListing {
    /// One catalog model as `--json` prints it; every key is present, null where there is nothing.
    struct Row: Encodable {
        let id: String
        let name: String
        let bytes: Int64
        let sha256: String
        let license: String
        let origin: String
        let recommendedMemoryBytes: Int64
        let followsInstructions: Bool
        /// Whether its own chat template can call tools (`--tools`).
        let callsTools: Bool
        /// Whether it only embeds text (`llmkit embed`).
        let embeddingModel: Bool
        /// The installed file, or nil when it is not downloaded.
        let installedPath: String?
        /// Whether `llmkit pull ID` can fetch it.
        let downloadable: Bool
        /// Whether it is the recommendation for this machine.
        let recommended: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(sha256, forKey: .sha256)
            try container.encode(license, forKey: .license)
            try container.encode(origin, forKey: .origin)
            try container.encode(recommendedMemoryBytes, forKey: .recommendedMemoryBytes)
            try container.encode(followsInstructions, forKey: .followsInstructions)
            try container.encode(callsTools, forKey: .callsTools)
            try container.encode(embeddingModel, forKey: .embeddingModel)
            try container.encode(installedPath, forKey: .installedPath)
            try container.encode(downloadable, forKey: .downloadable)
            try container.encode(recommended, forKey: .recommended)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, bytes, sha256, license, origin, recommendedMemoryBytes, followsInstructions, callsTools, embeddingModel
            case installedPath, downloadable, recommended
        }
    }

    static func run(json: Bool) async throws -> ExitCode {
        let library = ModelLibrary()
        let (recommendation, memory) = ModelCatalog.recommendedForThisMachine()
        var rows: [Row] = []
        for entry in ModelCatalog.all {
            rows.append(Row(id: entry.id, name: entry.displayName, bytes: entry.bytes, sha256: entry.sha256,
                            license: entry.license, origin: entry.origin, recommendedMemoryBytes: entry.recommendedMemoryBytes,
                            followsInstructions: entry.followsInstructions, callsTools: entry.callsTools,
                            embeddingModel: entry.isEmbeddingModel,
                            installedPath: try await library.installed(entry)?.url.path, downloadable: !entry.urls.isEmpty,
                            recommended: entry.id == recommendation?.id))
        }
        if json {
            try Console.printJSON(rows)
            return .success
        }
        var table = [["ID", "SIZE", "MEMORY", "STATUS", "LICENSE"]]
        for row in rows {
            let status = row.installedPath != nil ? "installed" : row.downloadable ? "llmkit pull \(row.id)"
                : row.id == ModelCatalog.smolLM2_135mInstruct.id ? "scripts/bootstrap" : "scripts/bootstrap-test"
            table.append([row.id + (row.recommended ? " *" : ""), ByteCount.format(row.bytes),
                          ByteCount.format(row.recommendedMemoryBytes), status,
                          row.license + (row.embeddingModel ? " (embeddings)" : row.followsInstructions ? "" : " (base model)")])
        }
        let widths = (0..<4).map { column in table.map { $0[column].count }.max() ?? 0 }
        for row in table {
            let cells = [row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0),
                         String(repeating: " ", count: widths[1] - row[1].count) + row[1],
                         String(repeating: " ", count: widths[2] - row[2].count) + row[2],
                         row[3].padding(toLength: widths[3], withPad: " ", startingAt: 0), row[4]]
            Console.out(cells.joined(separator: "  ") + "\n")
        }
        let available = ByteCount.format(memory)
        Console.out(recommendation.map { "\n* recommended for this machine (\(available) of memory available): \($0.id)\n" }
                    ?? "\nno catalog model fits in the \(available) of memory available\n")
        return .success
    }
}
