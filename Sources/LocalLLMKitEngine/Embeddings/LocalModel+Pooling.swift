extension LocalModel {
    /// Whether the model's attention is causal (a decoder), from `<architecture>.attention.causal`.
    package nonisolated var isCausal: Bool {
        guard let architecture = file.architecture, case .bool(false)? = file.metadata["\(architecture).attention.causal"] else {
            return true
        }
        return false
    }

    /// The pooling that `pooling` means for this model.
    /// - Throws: ``LocalModel/EmbeddingError/unsupportedPooling(path:key:value:reason:)`` when it
    ///   is ``Pooling/automatic`` and the model's metadata names no pooling llama.cpp can run.
    package nonisolated func resolvedPooling(_ pooling: Pooling) throws -> EmbeddingContext.Pooling {
        switch pooling {
        case .mean: return .mean
        case .cls: return .cls
        case .last: return .last
        case .automatic: break
        }
        let key = "\(file.architecture ?? "").pooling_type"
        guard let value = file.metadata[key] else { return isCausal ? .last : .mean }
        func refuse(_ reason: String) -> EmbeddingError {
            .unsupportedPooling(path: url.path, key: key, value: value.description, reason: reason)
        }
        switch value.intValue {
        case 0?: return isCausal ? .last : .mean       // LLAMA_POOLING_TYPE_NONE: per-token vectors
        case let number? where number >= 1 && number <= 3: return EmbeddingContext.Pooling(rawValue: Int32(number))!
        case 4?: throw refuse("rank pooling scores query and document pairs: this is a reranker, which rank(query:documents:) runs")
        default: throw refuse("not one of llama.cpp's pooling types (0 none, 1 mean, 2 cls, 3 last, 4 rank); llama.cpp would abort on it")
        }
    }
}

extension LocalModel.Pooling {
    /// The public name of an engine pooling.
    init(_ pooling: EmbeddingContext.Pooling) {
        switch pooling {
        case .mean: self = .mean
        case .cls: self = .cls
        case .last: self = .last
        case .rank: self = .automatic       // the model's own pooling: only rank(query:documents:) uses it
        }
    }
}
