import Foundation
import LocalLLMKit

/// One model as `llmkit list --json`, `show --json`, `pull --json` and `import --json` print it.
struct ModelReport: Encodable {
    let id: String
    let name: String
    let path: String
    let bytes: Int64
    let sha256: String?
    let source: String
    let readOnly: Bool
    let selection: String
    var architecture: String?
    var parameterCount: Int64?
    var quantization: String?
    var trainingContextLength: Int?
    var hasChatTemplate: Bool?
    var sourceUrls: [String]?
    var addedAt: Date?
    /// The LoRA adapters that load with it: `FILE:SCALE` paths.
    var adapters: [String]?

    init(_ entry: ModelLibrary.Entry) {
        id = entry.id
        name = entry.name
        path = entry.url.path
        bytes = entry.bytes
        sha256 = entry.sha256
        source = entry.source.rawValue
        readOnly = entry.isReadOnly
        selection = entry.selection.storageValue
        adapters = entry.adapters.isEmpty ? nil : entry.adapters.map { "\($0.url.path):\($0.scale)" }
    }

    init(_ record: ModelLibrary.Record, in library: ModelLibrary) {
        self.init(ModelLibrary.Entry(record: record, url: library.url(of: record)))
        sourceUrls = record.sourceURLs
        addedAt = record.addedAt
        architecture = record.architecture
        parameterCount = record.parameterCount
        quantization = record.quantization
        trainingContextLength = record.trainingContextLength
        hasChatTemplate = record.hasChatTemplate
    }

    /// A file outside the library and the caches.
    init(file: GGUFFile) {
        id = file.url.path
        name = file.name ?? file.url.lastPathComponent
        path = file.url.path
        bytes = file.fileSize
        sha256 = nil
        source = "file"
        readOnly = false
        selection = ModelLibrary.Selection.file(file.url).storageValue
        describe(file)
    }

    /// Adds what the GGUF header says.
    mutating func describe(_ file: GGUFFile) {
        architecture = file.architecture
        parameterCount = file.parameterCount
        quantization = file.quantization
        trainingContextLength = file.trainingContextLength
        hasChatTemplate = file.hasChatTemplate
    }

    /// `key  value` fields for people.
    var fields: [(String, String)] {
        var lines = [("id", id), ("name", name), ("path", path), ("size", "\(bytes) bytes (\(ByteCount.format(bytes)))"),
                     ("sha256", sha256 ?? "not computed"), ("source", source + (readOnly ? " (read-only)" : "")),
                     ("selection", selection)]
        if let architecture { lines.append(("architecture", architecture)) }
        if let parameterCount { lines.append(("parameters", String(format: "%.2f M", Double(parameterCount) / 1e6))) }
        if let quantization { lines.append(("quantization", quantization)) }
        if let trainingContextLength { lines.append(("training context", "\(trainingContextLength)")) }
        if let hasChatTemplate { lines.append(("chat template", hasChatTemplate ? "embedded" : "none")) }
        if let sourceUrls, !sourceUrls.isEmpty { lines.append(("downloaded from", sourceUrls.joined(separator: ", "))) }
        if let addedAt { lines.append(("added", ISO8601DateFormatter().string(from: addedAt))) }
        if let adapters { lines.append(("adapters", adapters.joined(separator: ", "))) }
        return lines
    }
}
