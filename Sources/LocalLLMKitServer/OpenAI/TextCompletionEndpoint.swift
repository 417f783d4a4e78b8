import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/completions`: `n` raw continuations of `prompt` (choices, as parallel
    /// sequences; see ``ChoiceStreams``), whole or streamed.
    func textCompletion(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let prompt: String
        let parameters: GenerationParameters
        let format: OutputFormat
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(requestedBy: body)
            try entry.checkGenerates()
            served = try await entry.resolve()
            prompt = try Self.prompt(body)
            parameters = try GenerationParameters(body, vocabularySize: served.vocabularySize, adapterCount: served.adapterCount)
            format = try body.grammar().map(OutputFormat.grammar) ?? .text
            if body["suffix"] != nil { throw APIError.invalid("'suffix' is not supported by this server.", param: "suffix") }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let stream = ChoiceStreams.merge(count: parameters.choices) { index in
            served.model.streamCompletionEvents(prompt, format: format, options: ChoiceStreams.options(parameters.options, choice: index),
                                                reusesCache: parameters.reusesPromptCache)
        }
        let id = CompletionJSON.id(prefix: "cmpl-")
        let created = Int(Date().timeIntervalSince1970)
        guard parameters.stream else {
            do {
                let answers = try await ChoiceStreams.responses(stream, count: parameters.choices) {
                    if case .done(let response) = $0 { response } else { nil }
                }
                answers.forEach { metrics.recordTokens($0.statistics) }
                if Task.isCancelled || answers.count < parameters.choices { return 499 }
                let choices = answers.enumerated().map { index, response in
                    CompletionJSON.textChoice(index: index, text: response.text, finishReason: CompletionJSON.finishReason(response.stopReason),
                                              logProbabilities: response.logProbabilities)
                }
                return succeed(exchange, CompletionJSON.textCompletion(id: id, model: served.id, created: created, choices: choices,
                                                                       usage: CompletionJSON.combined(answers.map(\.statistics))))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var events = EventStream(exchange: exchange, headers: cors)
        var finished: [GenerationStatistics] = []
        // Each chunk carries the entries of the tokens measured since the last one, and the
        // offset of its first token's text in its choice.
        var pending = Array(repeating: LogProbabilityChunks(), count: parameters.choices)
        do {
            for try await (index, event) in stream {
                let choice: OrderedJSON
                switch event {
                case .logProbability(let measured):
                    pending[index].entries.append(measured)
                    continue
                case .text(let text):
                    let carried = pending[index].take()
                    choice = CompletionJSON.textChoice(index: index, text: text, finishReason: nil,
                                                       logProbabilities: carried.entries, textOffset: carried.textOffset)
                case .done(let response):
                    metrics.recordTokens(response.statistics)
                    finished.append(response.statistics)
                    let carried = pending[index].take()
                    choice = CompletionJSON.textChoice(index: index, text: "", finishReason: CompletionJSON.finishReason(response.stopReason),
                                                       logProbabilities: carried.entries, textOffset: carried.textOffset)
                default:
                    continue                                  // a raw completion streams text only
                }
                events.send(CompletionJSON.textCompletion(id: id, model: served.id, created: created, choices: [choice], usage: nil))
            }
            if parameters.includeUsage, !finished.isEmpty {
                events.send(CompletionJSON.usageChunk(id: id, object: "text_completion", model: served.id, created: created,
                                                      statistics: CompletionJSON.combined(finished)))
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
