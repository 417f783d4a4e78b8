import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/rerank` (also `/rerank`, `/v1/reranking`, `/reranking`), in llama-server's
    /// Jina/Cohere shape: `query`, `documents` (strings, or objects with `text`), `top_n` and
    /// `return_documents`. Answers `results` ordered by `relevance_score`, best first, each
    /// with the document's `index` (and `document.text` when asked), and `usage`. A served
    /// model without a ranking head gets a 400 that says so.
    func rerank(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let query: String
        let documents: [String]
        let topCount: Int?
        let returnsDocuments: Bool
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(requestedBy: body)
            query = try body.requiredString("query")
            guard case .array(let items)? = body["documents"], !items.isEmpty else {
                throw APIError.invalid("'documents' must be a non-empty array of strings.", param: "documents")
            }
            documents = try items.enumerated().map { index, item in
                if case .string(let text) = item { return text }
                if case .object(let fields) = item, case .string(let text)? = fields.first(where: { $0.0 == "text" })?.1 { return text }
                throw APIError.invalid("'documents[\(index)]' must be a string (or an object with 'text').", param: "documents")
            }
            topCount = try body.integer("top_n", in: 1...Int(Int32.max))
            returnsDocuments = try body.bool("return_documents") ?? false
            served = try await entry.resolve()
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let ranking: LocalModel.Ranking
        do {
            ranking = try await served.model.rank(query: query, documents: documents)
        } catch let failure as LocalModel.EmbeddingError {
            return fail(exchange, Self.rankingError(failure, model: served.id), cors: cors)
        } catch {
            if Task.isCancelled { return 499 }
            return fail(exchange, APIError(error), cors: cors)
        }
        metrics.recordEmbeddings(inputs: documents.count, tokens: ranking.tokenCount)
        if Task.isCancelled { return 499 }
        let results = ranking.documents.prefix(topCount ?? documents.count).map { document -> OrderedJSON in
            var fields: [(String, OrderedJSON)] = [("index", .integer(document.index)), ("relevance_score", .number(Double(document.score)))]
            if returnsDocuments { fields.append(("document", .object([("text", .string(documents[document.index]))]))) }
            return .object(fields)
        }
        return succeed(exchange, .object([
            ("model", .string(served.id)), ("object", .string("list")),
            ("usage", .object([("prompt_tokens", .integer(ranking.tokenCount)), ("total_tokens", .integer(ranking.tokenCount))])),
            ("results", .array(Array(results))),
        ]))
    }

    /// A ranking failure as a 400 naming the document at fault (`documents[3]`) or the model.
    private static func rankingError(_ error: LocalModel.EmbeddingError, model id: String) -> APIError {
        switch error {
        case .inputTooLong(let index, let tokenCount, let limit):
            return .invalid("The query with 'documents[\(index)]' has \(tokenCount) tokens, but the model '\(id)' reads at most "
                            + "\(limit) per pair; shorten the document or the query.", param: "documents", code: "context_length_exceeded")
        case .noTokens(let index):
            return .invalid("The query with 'documents[\(index)]' produced no tokens.", param: "documents")
        default:
            return .embedding(error, model: id)
        }
    }
}
