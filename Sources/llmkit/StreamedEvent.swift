import LocalLLMKit

/// One line of `llmkit run --stream-json`: an event of the answer as a compact JSON object,
/// `{"type": "text"|"thinking"|"snapshot"|"tool_call"|"tool_result", …}`. The last line is the
/// `--json` report with `"type": "done"`.
struct StreamedEvent: Encodable {
    let type: String
    var text: String?
    var id: String?
    var name: String?
    var arguments: String?
    var output: String?
    var error: String?

    private init(type: String, text: String? = nil) {
        self.type = type
        self.text = text
    }

    /// The line for a streamed chunk of raw completion.
    init(text: String) {
        self.init(type: "text", text: text)
    }

    /// The line for a conversation event; nil for `.done`, which the report stands for.
    init?(_ event: Conversation.Event) {
        switch event {
        case .text(let delta):
            self.init(type: "text", text: delta)
        case .thinking(let delta):
            self.init(type: "thinking", text: delta)
        case .snapshot(let full, _):
            self.init(type: "snapshot", text: full)
        case .toolCallDelta, .logProbability:
            return nil                       // the whole call follows as "tool_call"; the CLI asks for no log-probabilities
        case .toolCallStarted(let call):
            self.init(type: "tool_call")
            (id, name, arguments) = (call.id, call.name, call.arguments)
        case .toolCallFinished(let call):
            self.init(type: "tool_result")
            (id, name) = (call.id, call.name)
            if call.isError { error = call.output } else { output = call.output }
        case .done:
            return nil
        }
    }

    /// Writes the line to stdout.
    func print() throws {
        try Console.printJSONLine(self)
    }
}
