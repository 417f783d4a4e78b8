import LocalLLMKit

/// Prints a conversation turn: the answer on stdout, the thinking on stderr when asked, or with
/// `streamsJSON` one compact JSON object per event on stdout (`run --stream-json`).
struct ChatPrinter {
    let json: Bool
    let showThinking: Bool
    var streamsJSON = false
    /// Whether Ctrl-C cancels the stream here; `llmkit chat` on a terminal handles Ctrl-C
    /// itself, by cancelling the task that runs `stream`.
    var cancelsOnInterrupt = true

    /// Streams the events and returns the response; the answer ends with a newline.
    func stream(_ stream: Conversation.ResponseStream) async throws -> ModelResponse<String> {
        guard cancelsOnInterrupt else { return try await consume(stream) }
        return try await InterruptHandler.shared.whileRunning(cancel: { stream.cancel() }) {
            try await consume(stream)
        }
    }

    /// Prints the events as they come, then returns the response.
    private func consume(_ stream: Conversation.ResponseStream) async throws -> ModelResponse<String> {
        var printed = ""
        for try await event in stream where !json {
            if streamsJSON {
                try StreamedEvent(event)?.print()
                continue
            }
            switch event {
            case .thinking(let delta):
                if showThinking { Console.err(TerminalText.escaped(delta, keepingLineBreaks: true)) }
            case .text(let delta):
                Console.answer(delta)
                printed += delta
            case .snapshot(let text, _):
                // A parse rewrote streamed text; print what is new when it still extends it.
                if text.hasPrefix(printed) {
                    Console.answer(String(text.dropFirst(printed.count)))
                    printed = text
                }
            case .toolCallDelta, .logProbability:
                break                        // a call is printed whole, when it starts; the CLI asks for no log-probabilities
            case .toolCallStarted(let call):
                Console.message("[\(call.id)] \(call.name)(\(call.arguments))")
            case .toolCallFinished(let call):
                Console.message("[\(call.id)] \(call.isError ? "error" : "→") \((call.output ?? "").prefix(300))")
            case .done(let response):
                if !json && !response.text.hasSuffix("\n") { Console.out("\n") }
            }
        }
        return try await stream.result
    }
}
