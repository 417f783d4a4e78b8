import LocalLLMKit

extension APIError {
    /// A completion request for a model that cannot generate text (an embedding model such as
    /// BERT): a 400 that names the model and points at the endpoint it serves.
    static func cannotGenerate(model id: String?, reason: String) -> APIError {
        .invalid("\(name(id)) cannot generate text: \(reason). It serves POST /v1/embeddings only.",
                 param: "model", code: "model_not_supported")
    }

    /// The 400 for an embedding failure, naming the input at fault (`input[3]`) or the model.
    static func embedding(_ error: LocalModel.EmbeddingError, model id: String?) -> APIError {
        switch error {
        case .emptyInput:
            return .invalid("'input' is empty: send a string or a non-empty array of strings.", param: "input")
        case .noTokens(let index):
            return .invalid("'input[\(index)]' produced no tokens to embed (an empty text, with a model that adds no start or end token).",
                            param: "input")
        case .inputTooLong(let index, let tokenCount, let limit):
            return .invalid("'input[\(index)]' has \(tokenCount) tokens, but \(name(id).lowercasedFirst) embeds at most \(limit) tokens per input; "
                            + "shorten it, or send \"truncate\": true to cut it to \(limit).",
                            param: "input", code: "context_length_exceeded")
        case .unsupportedPooling(_, let key, let value, let reason):
            return .invalid("\(name(id)) cannot embed with its own pooling (\(key) = \(value)): \(reason).",
                            param: "model", code: "model_not_supported")
        case .unsupportedModel(_, let reason):
            return .invalid("\(name(id)) cannot embed text: \(reason).", param: "model", code: "model_not_supported")
        case .cannotRank(_, let reason):
            return .invalid("\(name(id)) cannot rank documents: \(reason).", param: "model", code: "model_not_supported")
        }
    }

    /// "The model 'id'", or "The model" when the id is not known (the server's file paths are
    /// never sent to clients).
    private static func name(_ id: String?) -> String {
        id.map { "The model '\($0)'" } ?? "The model"
    }
}

extension String {
    /// The string with its first letter lower-cased ("The model" → "the model").
    fileprivate var lowercasedFirst: String {
        prefix(1).lowercased() + dropFirst()
    }
}
