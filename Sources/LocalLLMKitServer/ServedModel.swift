import Foundation
import LocalLLMKit

/// A model the server answers for: its id, and what every request needs from it, read once.
struct ServedModel: Sendable {
    let id: String
    let model: LocalModel
    /// The model's chat template (checked once; each chat request starts from it).
    let template: ChatTemplate
    let vocabularySize: Int
    /// When the server started serving it (OpenAI's `created`).
    let created: Int

    init(id: String, model: LocalModel) throws {
        self.id = id
        self.model = model
        template = try ChatTemplate(model: model)
        vocabularySize = model.vocabularySize
        created = Int(Date().timeIntervalSince1970)
    }

    /// Refuses a completion for a model that cannot generate text (an embedding model such as
    /// BERT), before any of the request is read further.
    func checkGenerates() throws(APIError) {
        if let reason = model.file.generationProblem { throw .cannotGenerate(model: id, reason: reason) }
    }

    /// OpenAI's model object.
    var json: OrderedJSON {
        .object([("id", .string(id)), ("object", .string("model")), ("created", .integer(created)),
                 ("owned_by", .string("llmkit"))])
    }
}
