import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/embeddings`: one vector per text of `input`, in order, as JSON numbers or base64.
    ///
    /// Any served model embeds: an embedding model (BERT) with its own pooling, a chat model with
    /// its last token's. Vectors are normalised (length 1), as OpenAI's are.
    func embeddings(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let request: EmbeddingsRequest
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(requestedBy: body)
            request = try EmbeddingsRequest(body)
            served = try await entry.resolve()
            // A vector cannot be shortened: any other `dimensions` is refused before any work,
            // rather than answered with vectors of another length.
            let length = served.model.embeddingDimensions
            if let dimensions = request.dimensions, dimensions != length {
                throw APIError.invalid("'dimensions' is \(dimensions), but the model '\(served.id)' makes vectors of "
                                       + "\(length) dimensions, which this server cannot shorten: "
                                       + "send \(length) or leave 'dimensions' out.", param: "dimensions")
            }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let result: LocalModel.Embeddings
        do {
            result = try await served.model.embeddings(for: request.inputs, options: .init(truncates: request.truncates))
        } catch let failure as LocalModel.EmbeddingError {
            return fail(exchange, .embedding(failure, model: served.id), cors: cors)
        } catch {
            if Task.isCancelled { return 499 }
            return fail(exchange, APIError(error), cors: cors)
        }
        metrics.recordEmbeddings(inputs: result.vectors.count, tokens: result.totalTokenCount)
        if Task.isCancelled { return 499 }
        return succeed(exchange, EmbeddingJSON.response(result, model: served.id, format: request.encodingFormat))
    }
}
