import Foundation
import LocalLLMKit

/// A model the server answers for: its id, and what every request needs from it, read once.
struct ServedModel: Sendable {
    let id: String
    let model: LocalModel
    /// The model's chat template (checked once; each chat request starts from it).
    let template: ChatTemplate
    let vocabularySize: Int
    /// How many LoRA adapters it was loaded with (the ids of llama-server's `lora` lists).
    var adapterCount: Int { model.configuration.weights.adapters.count }

    init(id: String, model: LocalModel, chatTemplate: String? = nil) throws {
        self.id = id
        self.model = model
        template = try ChatTemplate(model: model, override: chatTemplate)
        vocabularySize = model.vocabularySize
    }
}
