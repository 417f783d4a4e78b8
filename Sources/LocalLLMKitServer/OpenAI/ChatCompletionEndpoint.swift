import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/chat/completions`: `n` replies (choices) to the client's messages, whole or
    /// streamed; the choices run as parallel sequences (see ``ChoiceStreams``).
    func chatCompletion(_ exchange: HTTPExchange) async -> Int {
        var timing = FirstContentTiming()
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let request: ChatCompletionRequest
        let round: ChatRound
        do {
            let parsed = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(requestedBy: parsed)
            let body = try await ImageURLResolver.resolve(parsed, fetcher: configuration.mediaFetcher,
                                                          maximumBytes: MediaAttachment.Limits.default.bytes)
            try entry.checkGenerates()
            served = try await entry.resolve()
            // Messages decoded and tool schemas checked off Swift's shared pool (see RequestBody.parse).
            (request, round) = try await BlockingWorkPool.shared.run { [served] in
                let request = try ChatCompletionRequest(body, vocabularySize: served.vocabularySize,
                                                        adapterCount: served.adapterCount, templateThinks: served.template.supportsThinking)
                return (request, try ChatRound(model: served.model, template: served.template, tools: request.tools,
                                               reusesPromptCache: request.parameters.reusesPromptCache))
            }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let choices = request.parameters.choices
        let stream = ChoiceStreams.merge(count: choices) { index in
            round.streamResponse(to: request.messages, format: request.format,
                                 options: ChoiceStreams.options(request.parameters.options, choice: index),
                                 thinking: request.thinking, toolChoice: request.toolChoice)
        }
        let id = CompletionJSON.id(prefix: "chatcmpl-")
        let created = Int(Date().timeIntervalSince1970)
        guard request.parameters.stream else {
            do {
                let answers = try await ChoiceStreams.responses(stream, count: choices) {
                    if case .done(let response) = $0 { response } else { nil }
                }
                answers.forEach { metrics.recordTokens($0.statistics) }
                if Task.isCancelled || answers.count < choices { return 499 }
                return succeed(exchange, CompletionJSON.chatCompletion(id: id, model: served.id, created: created, responses: answers))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var events = EventStream(exchange: exchange, headers: cors)
        var streamed = Array(repeating: (text: "", thinking: ""), count: choices)
        var finished: [GenerationStatistics] = []
        var opened = Set<Int>()
        var streamedCalls = Array(repeating: [Int: StreamedToolCall](), count: choices)
        // Tokens' log-probabilities not yet sent: each content chunk carries those measured
        // before it; the last chunk, any left (tokens of thinking or of a tool call's markup).
        var pendingProbabilities = Array(repeating: [TokenLogProbability](), count: choices)
        func takeProbabilities(_ index: Int) -> OrderedJSON? {
            defer { pendingProbabilities[index] = [] }
            return pendingProbabilities[index].isEmpty ? nil : LogProbabilityJSON.chat(pendingProbabilities[index])
        }
        do {
            for try await (index, event) in stream {
                func chunk(_ delta: ChatCompletionChunk.Delta, finish: String? = nil, logProbabilities: OrderedJSON? = nil) -> ChatCompletionChunk {
                    ChatCompletionChunk(id: id, created: created, model: served.id, choices: [
                        .init(index: index, delta: delta, logProbabilities: logProbabilities, finishReason: finish),
                    ])
                }
                if opened.insert(index).inserted {
                    events.send(chunk(.init(role: "assistant", content: "")))
                }
                switch event {
                case .text(let delta):
                    streamed[index].text += delta
                    events.send(chunk(.init(content: delta), logProbabilities: takeProbabilities(index)))
                    timing.contentSent()
                case .thinking(let delta):
                    streamed[index].thinking += delta
                    events.send(chunk(.init(reasoning: delta)))
                    timing.contentSent()
                case .snapshot(let text, let thinking):
                    // Streamed text cannot be taken back: only what extends it is sent.
                    if thinking.hasPrefix(streamed[index].thinking), thinking.count > streamed[index].thinking.count {
                        events.send(chunk(.init(reasoning: String(thinking.dropFirst(streamed[index].thinking.count)))))
                        streamed[index].thinking = thinking
                        timing.contentSent()
                    }
                    if text.hasPrefix(streamed[index].text), text.count > streamed[index].text.count {
                        events.send(chunk(.init(content: String(text.dropFirst(streamed[index].text.count))),
                                          logProbabilities: takeProbabilities(index)))
                        streamed[index].text = text
                        timing.contentSent()
                    }
                case .toolCallDelta(let piece):
                    // Arguments stream as the model writes them, as OpenAI and llama-server stream them.
                    let isNew = streamedCalls[index][piece.index] == nil
                    if isNew {
                        streamedCalls[index][piece.index] = StreamedToolCall(id: piece.modelCallID ?? CompletionJSON.id(prefix: "call_"))
                    }
                    streamedCalls[index][piece.index]?.arguments += piece.arguments
                    let call = streamedCalls[index][piece.index]!
                    events.send(chunk(.init(toolCalls: [
                        CompletionJSON.toolCallPiece(index: piece.index, id: isNew ? call.id : nil, name: isNew ? piece.name : nil,
                                                     arguments: piece.arguments),
                    ])))
                case .logProbability(let measured):
                    pendingProbabilities[index].append(measured)
                case .toolCallStarted, .toolCallFinished:
                    break
                case .done(let response):
                    metrics.recordTokens(response.statistics)
                    if configuration.logsRequests, let line = timing.line(response.statistics) {
                        FileHandle.standardError.write(Data(line.utf8))
                    }
                    // What the pieces did not carry: calls not streamed, the ends of those that were.
                    let rest = CompletionJSON.unstreamedToolCalls(response.toolInvocations, streamed: streamedCalls[index])
                    if !rest.isEmpty { events.send(chunk(.init(toolCalls: rest))) }
                    events.send(chunk(.init(), finish: CompletionJSON.finishReason(response.stopReason),
                                      logProbabilities: takeProbabilities(index)))
                    finished.append(response.statistics)
                }
            }
            if request.parameters.includeUsage, !finished.isEmpty {
                events.send(ChatCompletionChunk(id: id, created: created, model: served.id, choices: [],
                                                usage: CompletionJSON.usage(CompletionJSON.combined(finished))))
            }
        } catch {
            let failure = APIError(error)
            guard events.started else { return fail(exchange, failure, cors: cors) }
            // Headers are out: the error is the stream's last event.
            events.send(.object([("error", .object([("message", .string(failure.message)), ("type", .string(failure.type)),
                                                    ("param", .null), ("code", failure.code.map(OrderedJSON.string) ?? .null)]))]))
        }
        events.finish()
        return Task.isCancelled ? 499 : 200
    }
}
