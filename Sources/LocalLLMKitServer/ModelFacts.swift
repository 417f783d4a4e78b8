import Foundation
import LocalLLMKit

/// What a served model's file says of it, read once: what Ollama's `/api/tags` and `/api/show`
/// list (its family, size, quantization, context length and chat template).
struct ModelFacts: Sendable {
    var architecture: String?
    var parameterCount: Int64
    var quantization: String?
    var fileSize: Int64
    var trainingContextLength: Int?
    var chatTemplate: String?
    var modified: Date?

    init(_ file: GGUFFile) {
        architecture = file.architecture
        parameterCount = file.parameterCount
        quantization = file.quantization
        fileSize = file.fileSize
        trainingContextLength = file.trainingContextLength
        chatTemplate = file.chatTemplate
        modified = (try? FileManager.default.attributesOfItem(atPath: file.url.path))?[.modificationDate] as? Date
    }

    /// The parameter count as Ollama writes it: `135.0M`, `1.5B`.
    var parameterSize: String {
        let count = Double(parameterCount)
        return count >= 1e9 ? String(format: "%.1fB", count / 1e9) : String(format: "%.1fM", count / 1e6)
    }
}
