import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /api/chat`, Ollama's: a reply to `messages` (with `tools`, `format`, `options`,
    /// `think`, images), streamed as NDJSON by default (`"stream": false` for one object).
    /// Tool calls are returned, not run. `keep_alive: 0` unloads the model after the answer.
    func ollamaChat(_ exchange: HTTPExchange) async -> Int {
        let received = ContinuousClock.now
        let cors = corsHeaders(for: exchange)
        let entry: ServedEntry
        let served: ServedModel
        let body: RequestBody
        let stream: Conversation.ResponseStream
        let streams: Bool
        do {
            body = try await RequestBody.parse(exchange.body)
            streams = try body.bool("stream") ?? true
            entry = try await servedModel(requestedBy: body, strict: true)
            try entry.checkGenerates()
            served = try await entry.resolve()
            stream = try await BlockingWorkPool.shared.run { [served, body] in
                let tools = ChatCompletionRequest.tools(try ChatCompletionBody.tools(body))
                let round = try ChatRound(model: served.model, template: served.template, tools: tools)
                return round.streamResponse(
                    to: try OllamaRequest.messages(body), format: try OllamaRequest.format(body),
                    options: try OllamaRequest.options(body, vocabularySize: served.vocabularySize),
                    thinking: try OllamaRequest.thinking(body, templateThinks: served.template.supportsThinking),
                    toolChoice: tools.isEmpty ? .none : .auto)
            }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        defer { Task { await self.unloadIfAsked(entry, body: body) } }
        guard streams else {
            do {
                let response = try await stream.result
                metrics.recordTokens(response.statistics)
                if Task.isCancelled { return 499 }
                let message = OllamaJSON.message(content: response.text, thinking: response.thinking, calls: response.toolInvocations)
                return succeed(exchange, OllamaJSON.chat(model: served.id, message: message, done: response, received: received))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var lines = EventStream(exchange: exchange, headers: cors, lines: true)
        var streamedText = ""
        func piece(_ text: String, thinking: String = "") -> OrderedJSON {
            OllamaJSON.chat(model: served.id, message: OllamaJSON.message(content: text, thinking: thinking), done: nil, received: received)
        }
        do {
            for try await event in stream {
                switch event {
                case .text(let delta):
                    streamedText += delta
                    lines.sendLine(piece(delta))
                case .thinking(let delta):
                    lines.sendLine(piece("", thinking: delta))
                case .snapshot(let text, _):
                    if text.hasPrefix(streamedText), text.count > streamedText.count {
                        lines.sendLine(piece(String(text.dropFirst(streamedText.count))))
                        streamedText = text
                    }
                case .toolCallDelta, .toolCallStarted, .toolCallFinished, .logProbability:
                    break                                   // Ollama sends a call whole
                case .done(let response):
                    metrics.recordTokens(response.statistics)
                    if !response.toolInvocations.isEmpty {
                        lines.sendLine(OllamaJSON.chat(model: served.id, message: OllamaJSON.message(content: "", calls: response.toolInvocations),
                                                   done: nil, received: received))
                    }
                    lines.sendLine(OllamaJSON.chat(model: served.id, message: OllamaJSON.message(content: ""), done: response, received: received))
                }
            }
        } catch {
            guard lines.started else { return fail(exchange, APIError(error), cors: cors) }
            lines.sendLine(OllamaJSON.error(APIError(error)))
        }
        lines.finish(done: false)
        return Task.isCancelled ? 499 : 200
    }

    /// `POST /api/generate`, Ollama's: a reply to `prompt` (after `system`, through the chat
    /// template), or with `raw` a plain continuation of it; `format`, `options`, `think`,
    /// `images`; NDJSON by default. An empty prompt only loads the model (`done_reason` `load`),
    /// or with `keep_alive: 0` unloads it (`unload`), as Ollama does.
    func ollamaGenerate(_ exchange: HTTPExchange) async -> Int {
        let received = ContinuousClock.now
        let cors = corsHeaders(for: exchange)
        let entry: ServedEntry
        let served: ServedModel
        let body: RequestBody
        let chunks: AsyncThrowingStream<(Int, Conversation.Event), any Swift.Error>
        let streams: Bool
        do {
            body = try await RequestBody.parse(exchange.body)
            streams = try body.bool("stream") ?? true
            entry = try await servedModel(requestedBy: body, strict: true)
            for unsupported in ["suffix", "template", "context"] where body[unsupported] != nil {
                throw APIError.invalid("'\(unsupported)' is not supported by this server.", param: unsupported)
            }
            let prompt = try body.string("prompt") ?? ""
            if prompt.isEmpty && body["images"] == nil {
                if Self.unloadsNow(body) {
                    await unloadIfAsked(entry, body: body)
                    return succeed(exchange, OllamaJSON.generate(model: entry.id, text: "", done: nil, doneReason: "unload", received: received))
                }
                _ = try await entry.resolve()
                return succeed(exchange, OllamaJSON.generate(model: entry.id, text: "", done: nil, doneReason: "load", received: received))
            }
            try entry.checkGenerates()
            served = try await entry.resolve()
            let raw = try body.bool("raw") ?? false
            chunks = try await BlockingWorkPool.shared.run { [served, body] in
                let options = try OllamaRequest.options(body, vocabularySize: served.vocabularySize)
                let format = try OllamaRequest.format(body)
                if raw {
                    let completion = served.model.streamCompletionEvents(prompt, format: format, options: options, reusesCache: true)
                    return ChoiceStreams.merge(count: 1) { _ in completion }
                }
                var messages = try body.string("system").map { [ChatMessage.system($0)] } ?? []
                messages.append(ChatMessage(role: .user, content: prompt, attachments: try OllamaRequest.images(body["images"], param: "images")))
                let round = try ChatRound(model: served.model, template: served.template, tools: [])
                let reply = round.streamResponse(to: messages, format: format, options: options,
                                                 thinking: try OllamaRequest.thinking(body, templateThinks: served.template.supportsThinking),
                                                 toolChoice: .none)
                return ChoiceStreams.merge(count: 1) { _ in reply }
            }
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        defer { Task { await self.unloadIfAsked(entry, body: body) } }
        var lines = EventStream(exchange: exchange, headers: cors, lines: true)
        do {
            for try await (_, event) in chunks {
                switch event {
                case .text(let delta) where streams:
                    lines.sendLine(OllamaJSON.generate(model: served.id, text: delta, done: nil, received: received))
                case .thinking(let delta) where streams:
                    lines.sendLine(OllamaJSON.generate(model: served.id, text: "", thinking: delta, done: nil, received: received))
                case .done(let response):
                    metrics.recordTokens(response.statistics)
                    if Task.isCancelled { return 499 }
                    guard streams else {
                        return succeed(exchange, OllamaJSON.generate(model: served.id, text: response.text, thinking: response.thinking,
                                                                     done: response, received: received))
                    }
                    lines.sendLine(OllamaJSON.generate(model: served.id, text: "", done: response, received: received))
                default:
                    break
                }
            }
        } catch {
            guard lines.started else { return fail(exchange, APIError(error), cors: cors) }
            lines.sendLine(OllamaJSON.error(APIError(error)))
        }
        lines.finish(done: false)
        return Task.isCancelled ? 499 : 200
    }

    /// Whether `keep_alive` is zero (`0`, `0.0`, `"0"`, `"0s"`, `"0m"`, `"0h"`): the one value
    /// that changes what the server does (the model goes now). Other durations are not turned
    /// into a `Duration`, which traps on a value such as `1e300`.
    static func unloadsNow(_ body: RequestBody) -> Bool {
        switch body["keep_alive"] {
        case .integer(0)?: return true
        case .number(let seconds)?: return seconds == 0
        case .string(let text)?:
            let number = ["s", "m", "h"].contains(where: text.hasSuffix) ? String(text.dropLast()) : text
            return Double(number) == 0
        default: return false
        }
    }

    /// `keep_alive: 0`: the model is unloaded now (when the server loads it on demand).
    func unloadIfAsked(_ entry: ServedEntry, body: RequestBody) async {
        guard Self.unloadsNow(body), let residency, let source = entry.source else { return }
        if let held = await residency.entries.first(where: { $0.url == source.url && $0.configuration == source.configuration }) {
            await residency.unload(held.model)
        }
    }
}
