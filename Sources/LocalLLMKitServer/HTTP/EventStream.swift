import LocalLLMKit

/// A streamed answer on an exchange (chunked): server-sent events (`text/event-stream`, `data:
/// <json>` events, then `data: [DONE]`), or with `lines` newline-delimited JSON
/// (`application/x-ndjson`, Ollama's). Headers go out with the first event, so that an error
/// found before it can still be an ordinary HTTP error.
struct EventStream {
    let exchange: HTTPExchange
    let headers: [(String, String)]
    /// Newline-delimited JSON instead of server-sent events.
    let lines: Bool
    private(set) var started = false

    init(exchange: HTTPExchange, headers: [(String, String)], lines: Bool = false) {
        self.exchange = exchange
        self.headers = headers
        self.lines = lines
    }

    /// Sends one line of newline-delimited JSON. Returns false once the client has gone.
    @discardableResult
    mutating func sendLine(_ json: OrderedJSON) -> Bool {
        start()
        return exchange.write(json.serialized() + "\n")
    }

    /// Sends one event. Returns false once the client has gone.
    @discardableResult
    mutating func send(_ json: OrderedJSON) -> Bool {
        start()
        return exchange.write("data: \(json.serialized())\n\n")
    }

    /// Sends one event of a wire type (OpenAI's chat chunks). Returns false once the client has gone.
    @discardableResult
    mutating func send(_ chunk: ChatCompletionChunk) -> Bool {
        start()
        return exchange.write("data: \(chunk.serialized())\n\n")
    }

    /// Sends one named event (`event: NAME`), as Anthropic's streams do. Returns false once the client has gone.
    @discardableResult
    mutating func send(event name: String, _ json: OrderedJSON) -> Bool {
        start()
        return exchange.write("event: \(name)\ndata: \(json.serialized())\n\n")
    }

    /// Ends the answer, after OpenAI's `[DONE]` unless `done` is false (Anthropic's streams end
    /// with their `message_stop` event).
    mutating func finish(done: Bool = true) {
        start()
        if done { exchange.write("data: [DONE]\n\n") }
        exchange.finish()
    }

    private mutating func start() {
        guard !started else { return }
        started = true
        exchange.begin(status: 200, contentType: lines ? "application/x-ndjson" : "text/event-stream",
                       headers: headers + [("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")], streaming: true)
    }
}
