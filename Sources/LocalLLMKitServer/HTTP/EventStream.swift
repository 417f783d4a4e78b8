import LocalLLMKit

/// A server-sent event stream on an exchange (`text/event-stream`, chunked): `data: <json>` events,
/// then `data: [DONE]`. Headers go out with the first event, so that an error found before it can
/// still be an ordinary HTTP error.
struct EventStream {
    let exchange: HTTPExchange
    let headers: [(String, String)]
    private(set) var started = false

    init(exchange: HTTPExchange, headers: [(String, String)]) {
        self.exchange = exchange
        self.headers = headers
    }

    /// Sends one event. Returns false once the client has gone.
    @discardableResult
    mutating func send(_ json: OrderedJSON) -> Bool {
        start()
        return exchange.write("data: \(json.serialized())\n\n")
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
        exchange.begin(status: 200, contentType: "text/event-stream",
                       headers: headers + [("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")], streaming: true)
    }
}
