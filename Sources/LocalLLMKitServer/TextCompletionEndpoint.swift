import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/completions`: a raw continuation of `prompt`, whole or streamed.
    func textCompletion(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let prompt: String
        let parameters: GenerationParameters
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try servedModel(named: body.requiredString("model"))
            try entry.checkGenerates()
            served = try await entry.resolve()
            prompt = try Self.prompt(body)
            parameters = try GenerationParameters(body, vocabularySize: served.vocabularySize)
            if body["suffix"] != nil { throw APIError.invalid("'suffix' is not supported by this server.", param: "suffix") }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let stream = served.model.streamCompletion(prompt, options: parameters.options, reusesCache: parameters.reusesPromptCache)
        let id = CompletionJSON.id(prefix: "cmpl-")
        let created = Int(Date().timeIntervalSince1970)
        guard parameters.stream else {
            do {
                let response = try await stream.result
                metrics.recordTokens(response.statistics)
                if Task.isCancelled { return 499 }
                return succeed(exchange, CompletionJSON.textCompletion(
                    id: id, model: served.id, created: created, text: response.text,
                    finishReason: CompletionJSON.finishReason(response.stopReason), usage: response.statistics))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var events = EventStream(exchange: exchange, headers: cors)
        do {
            for try await text in stream {
                events.send(CompletionJSON.textCompletion(id: id, model: served.id, created: created, text: text,
                                                          finishReason: nil, usage: nil))
            }
            let response = try await stream.result
            metrics.recordTokens(response.statistics)
            events.send(CompletionJSON.textCompletion(id: id, model: served.id, created: created, text: "",
                                                      finishReason: CompletionJSON.finishReason(response.stopReason), usage: nil))
            if parameters.includeUsage {
                events.send(CompletionJSON.usageChunk(id: id, object: "text_completion", model: served.id, created: created,
                                                      statistics: response.statistics))
            }
        } catch {
            let failure = APIError(error)
            guard events.started else { return fail(exchange, failure, cors: cors) }
            events.send(.object([("error", .object([("message", .string(failure.message)), ("type", .string(failure.type)),
                                                    ("param", .null), ("code", failure.code.map(OrderedJSON.string) ?? .null)]))]))
        }
        events.finish()
        return Task.isCancelled ? 499 : 200
    }

    /// `prompt`: a string, or an array holding one string.
    private static func prompt(_ body: RequestBody) throws(APIError) -> String {
        switch body["prompt"] {
        case .string(let text)?: return text
        case .array(let items)? where items.count == 1:
            guard case .string(let text) = items[0] else { break }
            return text
        case .array?:
            throw .invalid("'prompt' must be one string: this server answers one prompt per request.", param: "prompt")
        default: break
        }
        throw .invalid("'prompt' is required and must be a string.", param: "prompt")
    }
}
