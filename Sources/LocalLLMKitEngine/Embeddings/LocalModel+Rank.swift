import Foundation

extension LocalModel {
    /// Documents scored against a query by a reranker (``LocalModel/rank(query:documents:)``).
    public struct Ranking: Sendable, Equatable {
        /// One document's place.
        public struct Document: Sendable, Equatable {
            /// Its position among the documents given.
            public let index: Int
            /// The model's relevance score (its ranking head's output: higher is more relevant;
            /// not a probability).
            public let score: Float
        }

        /// Every document, the most relevant first (ties keep the order given).
        public let documents: [Document]
        /// The tokens evaluated, over all query–document pairs.
        public let tokenCount: Int

        /// The scores in the order the documents were given.
        public var scores: [Float] {
            documents.sorted { $0.index < $1.index }.map(\.score)
        }
    }

    /// Scores each of `documents` against `query` with the model's ranking head (a cross-encoder
    /// reranker, such as a BERT with a classification head) and orders them, best first.
    ///
    /// ```swift
    /// let ranking = try await model.rank(query: "What do pandas eat?", documents: ["Bamboo.", "Paris is in France."])
    /// print(ranking.documents.first?.index ?? 0, ranking.scores)
    /// ```
    ///
    /// Each pair is tokenized as llama-server's `/rerank` does it (the model's rerank template
    /// when it has one), and the pairs are packed many to a decode, each its own sequence, as
    /// embeddings are (see ``embeddings(for:options:)``, whose turns and cancellation this shares).
    /// - Throws: ``LocalModel/EmbeddingError/cannotRank(path:reason:)`` for a model without a
    ///   ranking head, or a causal one; ``LocalModel/EmbeddingError/emptyInput`` for no
    ///   documents; ``LocalModel/EmbeddingError/inputTooLong(index:tokenCount:limit:)`` for a pair
    ///   (by its document's index) over the model's input length; or what
    ///   ``embeddings(for:options:)`` throws.
    public func rank(query: String, documents: [String]) async throws -> Ranking {
        try checkRankingHead()
        guard !documents.isEmpty else { throw EmbeddingError.emptyInput }
        let context = try embeddingContext(.rank)
        let limit = min(embeddingInputLimit, context.textCapacity)
        let template = file.metadata["tokenizer.chat_template.rerank"]?.stringValue
        var inputs: [[Token]] = []
        for (index, document) in documents.enumerated() {
            try Task.checkCancellation()
            let tokens = try tokenizer.rankingPair(query: query, document: document, template: template)
            guard !tokens.isEmpty else { throw EmbeddingError.noTokens(index: index) }
            guard tokens.count <= limit else { throw EmbeddingError.inputTooLong(index: index, tokenCount: tokens.count, limit: limit) }
            inputs.append(tokens)
        }
        let (job, _) = try await decode(inputs, on: context)
        let scores: [Float] = job.vectors.map { $0.first ?? 0 }
        var ranked: [Ranking.Document] = []
        for (index, score) in scores.enumerated() { ranked.append(Ranking.Document(index: index, score: score)) }
        ranked.sort { $0.score > $1.score || ($0.score == $1.score && $0.index < $1.index) }
        return Ranking(documents: ranked, tokenCount: inputs.reduce(0) { $0 + $1.count })
    }

    /// Whether the model has what ranking needs, read from its file: a classification head
    /// (`cls.output.weight`, or `cls.weight`) on a non-causal encoder. Without a head, llama.cpp
    /// would return the hidden state's first number as a score.
    private nonisolated func checkRankingHead() throws {
        guard !configuration.weights.vocabularyOnly else {
            throw EmbeddingError.cannotRank(path: url.path, reason: "it was loaded with vocabularyOnly, without its weights")
        }
        guard file.tensors.contains(where: { $0.name == "cls.output.weight" || $0.name == "cls.weight" }) else {
            throw EmbeddingError.cannotRank(path: url.path, reason: "it has no ranking head (no cls.output.weight tensor): "
                                            + "it is not a reranker; embed with it, or rank with a reranker")
        }
        guard !isCausal else {
            throw EmbeddingError.cannotRank(path: url.path, reason: "it is a causal (decoder) reranker; only encoder rerankers (BERT-like) are run")
        }
    }
}
