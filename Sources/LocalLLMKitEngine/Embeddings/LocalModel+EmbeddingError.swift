import Foundation

extension LocalModel {
    /// What can go wrong while embedding text.
    public enum EmbeddingError: Swift.Error, Sendable, Equatable {
        /// No texts were given.
        case emptyInput
        /// The text at `index` produced no tokens (an empty text, with a model that adds no
        /// start or end token).
        case noTokens(index: Int)
        /// The text at `index` has `tokenCount` tokens, but the model reads at most `limit`
        /// in one input; pass ``LocalModel/EmbeddingOptions/truncates`` to cut it.
        case inputTooLong(index: Int, tokenCount: Int, limit: Int)
        /// The model at `path` cannot embed with automatic pooling: its metadata key `key`
        /// holds `value`; `reason` says why. Choosing a ``LocalModel/Pooling`` explicitly works.
        case unsupportedPooling(path: String, key: String, value: String, reason: String)
        /// The model at `path` cannot embed at all; `reason` says why.
        case unsupportedModel(path: String, reason: String)
        /// The model at `path` cannot score query–document pairs (``LocalModel/rank(query:documents:)``):
        /// it has no ranking head, or is a kind of reranker that is not run; `reason` says which.
        case cannotRank(path: String, reason: String)
    }
}

extension LocalModel.EmbeddingError: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .emptyInput:
            return "nothing to embed: no texts were given"
        case .noTokens(let index):
            return "text \(index) produced no tokens to embed"
        case .inputTooLong(let index, let tokenCount, let limit):
            return "text \(index) has \(tokenCount) tokens, but the model embeds at most \(limit); ask for truncation to cut it"
        case .unsupportedPooling(let path, let key, let value, let reason):
            return "model \(path) has no usable pooling: \(key) = \(value): \(reason); choose a pooling explicitly"
        case .unsupportedModel(let path, let reason):
            return "model \(path) cannot embed text: \(reason)"
        case .cannotRank(let path, let reason):
            return "model \(path) cannot rank documents: \(reason)"
        }
    }
}
