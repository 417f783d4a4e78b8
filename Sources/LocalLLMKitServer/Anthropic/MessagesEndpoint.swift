import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /v1/messages`, Anthropic's Messages API: one reply, whole or streamed as its events
    /// (`message_start`, `content_block_start`/`delta`/`stop` for thinking, text and tool calls,
    /// `message_delta`, `message_stop`). Tool calls are returned, not run.
    func messages(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        let served: ServedModel
        let request: MessagesRequest
        let round: ChatRound
        do {
            (served, request, round) = try await prepareMessages(exchange)
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        let stream = round.streamResponse(to: request.messages, options: request.options, thinking: request.thinking,
                                          toolChoice: request.toolChoice)
        let id = MessagesJSON.id(prefix: "msg_")
        guard request.stream else {
            do {
                let response = try await stream.result
                metrics.recordTokens(response.statistics)
                if Task.isCancelled { return 499 }
                let ids = response.toolInvocations.map { $0.modelCallID ?? MessagesJSON.id(prefix: "toolu_") }
                return succeed(exchange, MessagesJSON.message(
                    id: id, model: served.id, content: MessagesJSON.content(response, callIDs: ids),
                    stopReason: MessagesJSON.stopReason(response), stopSequence: response.stopSequence,
                    usage: MessagesJSON.usage(response.statistics)))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var events = EventStream(exchange: exchange, headers: cors)
        var blocks = MessageBlocks()
        do {
            for try await event in stream {
                if !events.started {
                    let empty = GenerationStatistics()
                    events.send(event: "message_start", .object([("type", .string("message_start")), ("message", MessagesJSON.message(
                        id: id, model: served.id, content: [], stopReason: nil, stopSequence: nil, usage: MessagesJSON.usage(empty)))]))
                }
                var pieces: [(String, OrderedJSON)] = []
                switch event {
                case .thinking(let delta): pieces = blocks.add(.thinking, delta)
                case .text(let delta): pieces = blocks.add(.text, delta)
                case .snapshot(let text, _): pieces = blocks.extendText(to: text)
                case .toolCallDelta(let piece): pieces = blocks.add(piece)
                case .toolCallStarted, .toolCallFinished, .logProbability: break
                case .done(let response):
                    metrics.recordTokens(response.statistics)
                    pieces = blocks.finish(response.toolInvocations)
                    pieces.append(("message_delta", .object([
                        ("type", .string("message_delta")),
                        ("delta", .object([("stop_reason", .string(MessagesJSON.stopReason(response))),
                                           ("stop_sequence", response.stopSequence.map(OrderedJSON.string) ?? .null)])),
                        ("usage", MessagesJSON.usage(response.statistics)),
                    ])))
                    pieces.append(("message_stop", .object([("type", .string("message_stop"))])))
                }
                for (name, json) in pieces { events.send(event: name, json) }
            }
        } catch {
            let failure = APIError(error)
            guard events.started else { return fail(exchange, failure, cors: cors) }
            events.send(event: "error", MessagesJSON.error(failure))
        }
        events.finish(done: false)
        return Task.isCancelled ? 499 : 200
    }

    /// `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, the prompt that `/v1/messages`
    /// would evaluate for the same body (`max_tokens` may be left out).
    func countMessageTokens(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let (served, request, round) = try await prepareMessages(exchange, requiresLength: false)
            let prompt = try await round.replyPrompt(for: request.messages, thinking: request.thinking,
                                                     toolChoice: request.toolChoice)
            let tokens = try await BlockingWorkPool.shared.run { try served.model.tokenize(prompt, parsingSpecialTokens: true).count }
            return succeed(exchange, .object([("input_tokens", .integer(tokens))]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }

    /// The served model, the checked request and a chat round with its tools.
    private func prepareMessages(_ exchange: HTTPExchange, requiresLength: Bool = true)
        async throws -> (ServedModel, MessagesRequest, ChatRound) {
        var body = try await RequestBody.parse(exchange.body)
        if !requiresLength, body["max_tokens"] == nil { body = RequestBody(fields: body.fields + [("max_tokens", .integer(1))]) }
        let entry = try await servedModel(requestedBy: body)
        try entry.checkGenerates()
        let served = try await entry.resolve()
        let (request, round) = try await BlockingWorkPool.shared.run { [served, body] in
            let request = try MessagesRequest(body, templateThinks: served.template.supportsThinking)
            return (request, try ChatRound(model: served.model, template: served.template, tools: request.tools))
        }
        return (served, request, round)
    }
}

/// The content blocks of a streamed message: which one is open, and the events that open,
/// extend and close them.
struct MessageBlocks {
    enum Kind: Equatable {
        case thinking
        case text
        case toolUse(Int)
    }

    private var open: Kind?
    private var count = 0
    private var text = ""
    /// The streamed calls: their ids and arguments so far, by the call's index.
    private var calls: [Int: StreamedToolCall] = [:]

    private var index: Int { count - 1 }

    private mutating func start(_ kind: Kind, _ block: OrderedJSON) -> [(String, OrderedJSON)] {
        var events = close()
        open = kind
        count += 1
        events.append(("content_block_start", .object([("type", .string("content_block_start")), ("index", .integer(index)),
                                                       ("content_block", block)])))
        return events
    }

    private mutating func close() -> [(String, OrderedJSON)] {
        guard open != nil else { return [] }
        open = nil
        return [("content_block_stop", .object([("type", .string("content_block_stop")), ("index", .integer(index))]))]
    }

    private func delta(_ delta: OrderedJSON) -> (String, OrderedJSON) {
        ("content_block_delta", .object([("type", .string("content_block_delta")), ("index", .integer(index)), ("delta", delta)]))
    }

    /// More thinking or text.
    mutating func add(_ kind: Kind, _ piece: String) -> [(String, OrderedJSON)] {
        var events: [(String, OrderedJSON)] = []
        if open != kind {
            events = start(kind, kind == .thinking
                ? .object([("type", .string("thinking")), ("thinking", .string("")), ("signature", .string(""))])
                : .object([("type", .string("text")), ("text", .string(""))]))
        }
        if kind == .text { text += piece }
        events.append(delta(kind == .thinking ? .object([("type", .string("thinking_delta")), ("thinking", .string(piece))])
                                              : .object([("type", .string("text_delta")), ("text", .string(piece))])))
        return events
    }

    /// What a corrected answer adds to the text streamed (a stream cannot take text back).
    mutating func extendText(to whole: String) -> [(String, OrderedJSON)] {
        guard whole.hasPrefix(text), whole.count > text.count else { return [] }
        return add(.text, String(whole.dropFirst(text.count)))
    }

    /// A piece of a tool call: its block opens with the first.
    mutating func add(_ piece: Conversation.ToolCallDelta) -> [(String, OrderedJSON)] {
        var events: [(String, OrderedJSON)] = []
        if calls[piece.index] == nil {
            let id = piece.modelCallID ?? MessagesJSON.id(prefix: "toolu_")
            calls[piece.index] = StreamedToolCall(id: id)
            events = start(.toolUse(piece.index), .object([("type", .string("tool_use")), ("id", .string(id)),
                                                           ("name", .string(piece.name)), ("input", .object([]))]))
        }
        guard open == .toolUse(piece.index), !piece.arguments.isEmpty else { return events }
        calls[piece.index]?.arguments += piece.arguments
        events.append(delta(.object([("type", .string("input_json_delta")), ("partial_json", .string(piece.arguments))])))
        return events
    }

    /// The events that complete the message's calls (those not streamed whole, the ends of those
    /// that were) and close the last block.
    mutating func finish(_ invocations: [ToolInvocation]) -> [(String, OrderedJSON)] {
        var events: [(String, OrderedJSON)] = []
        for (number, call) in invocations.enumerated() {
            if let sent = calls[number] {
                guard open == .toolUse(number), call.arguments.hasPrefix(sent.arguments), call.arguments.count > sent.arguments.count else { continue }
                events.append(delta(.object([("type", .string("input_json_delta")),
                                             ("partial_json", .string(String(call.arguments.dropFirst(sent.arguments.count))))])))
            } else {
                events += add(.init(index: number, name: call.name, modelCallID: call.modelCallID, arguments: call.arguments, isFirst: true))
            }
        }
        if count == 0 { events += start(.text, .object([("type", .string("text")), ("text", .string(""))])) }
        return events + close()
    }
}
