import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/chat/completions`: one reply to the client's messages, whole or streamed.
    func chatCompletion(_ exchange: HTTPExchange) async -> Int {
        var timing = FirstContentTiming()
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let request: ChatCompletionRequest
        let conversation: Conversation
        do {
            let parsed = try await RequestBody.parse(exchange.body)
            let entry = try servedModel(named: parsed.requiredString("model"))
            let body = try await ImageURLResolver.resolve(parsed, fetcher: configuration.mediaFetcher,
                                                          maximumBytes: MediaAttachment.Limits.default.bytes)
            try entry.checkGenerates()
            served = try await entry.resolve()
            // Messages decoded and tool schemas checked off Swift's shared pool (see RequestBody.parse).
            (request, conversation) = try await BlockingWorkPool.shared.run { [served] in
                let request = try ChatCompletionRequest(body, vocabularySize: served.vocabularySize,
                                                        templateThinks: served.template.supportsThinking)
                return (request, try Conversation(model: served.model, tools: request.tools, template: served.template,
                                                  reusesPromptCache: request.parameters.reusesPromptCache))
            }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let stream = conversation.streamReply(to: request.messages, format: request.format, options: request.parameters.options,
                                              thinking: request.thinking, toolChoice: request.toolChoice)
        let id = CompletionJSON.id(prefix: "chatcmpl-")
        let created = Int(Date().timeIntervalSince1970)
        guard request.parameters.stream else {
            do {
                let response = try await stream.result
                metrics.recordTokens(response.statistics)
                if Task.isCancelled { return 499 }
                return succeed(exchange, CompletionJSON.chatCompletion(id: id, model: served.id, created: created, response: response))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var events = EventStream(exchange: exchange, headers: cors)
        func chunk(_ delta: [(String, OrderedJSON)], finish: String? = nil) -> OrderedJSON {
            CompletionJSON.chatChunk(id: id, model: served.id, created: created, delta: delta, finishReason: finish)
        }
        var streamedText = ""
        var streamedThinking = ""
        do {
            for try await event in stream {
                if !events.started { events.send(chunk([("role", .string("assistant")), ("content", .string(""))])) }
                switch event {
                case .text(let delta):
                    streamedText += delta
                    events.send(chunk([("content", .string(delta))]))
                    timing.contentSent()
                case .thinking(let delta):
                    streamedThinking += delta
                    events.send(chunk([("reasoning_content", .string(delta))]))
                    timing.contentSent()
                case .snapshot(let text, let thinking):
                    // Streamed text cannot be taken back: only what extends it is sent.
                    if thinking.hasPrefix(streamedThinking), thinking.count > streamedThinking.count {
                        events.send(chunk([("reasoning_content", .string(String(thinking.dropFirst(streamedThinking.count))))]))
                        streamedThinking = thinking
                        timing.contentSent()
                    }
                    if text.hasPrefix(streamedText), text.count > streamedText.count {
                        events.send(chunk([("content", .string(String(text.dropFirst(streamedText.count))))]))
                        streamedText = text
                        timing.contentSent()
                    }
                case .toolCallStarted, .toolCallFinished:
                    break
                case .done(let response):
                    metrics.recordTokens(response.statistics)
                    if configuration.logsRequests, let line = timing.line(response.statistics) {
                        FileHandle.standardError.write(Data(line.utf8))
                    }
                    if !response.toolInvocations.isEmpty {
                        events.send(chunk([("tool_calls", CompletionJSON.toolCalls(response.toolInvocations, indexed: true))]))
                    }
                    events.send(chunk([], finish: CompletionJSON.finishReason(response.stopReason)))
                    if request.parameters.includeUsage {
                        events.send(CompletionJSON.usageChunk(id: id, object: "chat.completion.chunk", model: served.id,
                                                              created: created, statistics: response.statistics))
                    }
                }
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
