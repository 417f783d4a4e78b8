import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/models/unload` with `{"model": ID}`: unloads a served model now (what ollama does
    /// for `keep_alive: 0`, and `llmkit stop` asks for). Its memory goes once the requests in flight
    /// on it end; the next request for it loads it again. Answers `{"model": ID, "unloaded": true}`;
    /// `404` (`model_not_loaded`) for a model that is not loaded, and `model_not_found` for one
    /// this server does not serve.
    func unloadModel(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(named: body.requiredString("model"))
            guard let residency, let source = entry.source else {
                throw APIError.invalid("The model '\(entry.id)' was loaded for the server's lifetime and cannot be unloaded.",
                                       param: "model", code: "model_not_unloadable")
            }
            let resident = await residency.entries
            guard let held = resident.first(where: { $0.url == source.url && $0.configuration == source.configuration }) else {
                throw APIError.notFound("The model '\(entry.id)' is not loaded.", param: "model", code: "model_not_loaded")
            }
            await residency.unload(held.model)
            return succeed(exchange, .object([("model", .string(entry.id)), ("unloaded", .bool(true))]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }
}
