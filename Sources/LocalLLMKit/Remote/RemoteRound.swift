import Foundation

/// One round of a remote conversation's turn: one streamed `POST /chat/completions`, its
/// chunks assembled into text, thinking and tool calls, its end mapped to a ``StopReason``,
/// its usage and timings to ``GenerationStatistics``.
struct RemoteRound: Sendable {
    let model: RemoteModel
    let toolBox: ToolBox
    let request: TurnRequest
    let thinking: Conversation.Thinking?
    let seed: UInt32
    let flag: CancellationFlag
    let emit: @Sendable (Conversation.Event) -> Void

    /// Sends `messages` and streams the answer, emitting its text and thinking.
    /// - Returns: the round (its calls still to be numbered by the conversation, so empty) and
    ///   the complete calls the model made.
    /// - Throws: a ``RemoteModel/Error``; nothing when cancelled (the result says ``StopReason/cancelled``).
    func run(_ messages: [ChatMessage], choice: Conversation.ToolChoice) async throws -> (RoundResult, [RemoteReply.Call]) {
        let body = try ChatCompletionBody(model: model.model, sending: messages, options: request.options, seed: seed,
                                          format: request.format, thinking: thinking,
                                          offer: choice == .none ? nil : try toolBox.offer(choice))
        let transport = RemoteTransport(model: model)
        let urlRequest = transport.request(path: "chat/completions", body: Data(try body.json().serialized().utf8))
        var reading = Reading(limits: model.configuration.limits, emit: emit)
        do {
            var response = try await transport.open(urlRequest, deadline: transport.deadline())
            defer { response.cancel() }
            if response.head?.contentType?.lowercased().hasPrefix("text/event-stream") ?? false {
                try await reading.stream(&response)
            } else {
                // A server that ignored `stream: true` sent the whole completion at once.
                let whole = try await response.collect(upTo: model.configuration.limits.maximumResponseBytes, truncating: false)
                try reading.absorb(ChatCompletionChunk.decode(String(decoding: whole, as: UTF8.self)))
                reading.isComplete = true
            }
        } catch is CancellationError {
            // Reported below as a cancelled round.
        }
        let cancelled = flag.isRaised || Task.isCancelled
        if !cancelled && !reading.isComplete && reading.reply.finishReason == nil {
            throw RemoteModel.Error.invalidResponse(reason: "the stream ended before the answer was complete (no finish_reason, no [DONE])")
        }
        return finish(reading, choice: choice, cancelled: cancelled)
    }

    /// The round's result from what was read.
    private func finish(_ reading: Reading, choice: Conversation.ToolChoice, cancelled: Bool) -> (RoundResult, [RemoteReply.Call]) {
        let reply = reading.reply
        var content = reply.content
        var calls = reply.calls
        var stopReason = StopReason.endOfText
        var stopSequence: String?
        switch reply.finishReason {
        case _ where cancelled: stopReason = .cancelled
        case "length": stopReason = .maximumTokens
        case "stop":
            if let stop = reply.stopString, request.options.stopSequences.contains(stop) {
                (stopReason, stopSequence) = (.stopSequence, stop)
            }
        default: break
        }
        if calls.isEmpty, choice != .none, !cancelled, case .text = request.format,
           let call = BareToolCall.parse(content, toolNames: Set(toolBox.tools.map(\.name))) {
            // The whole answer was a call without its markup (small models do this; the server's
            // parser left it as text): it is a call, not text.
            calls = [RemoteReply.Call(id: nil, name: call.name, arguments: call.arguments)]
            content = ""
            emit(.snapshot(text: "", thinking: reply.reasoning))
        }
        // A call cut off by the token limit has unfinished arguments: it is dropped.
        let complete = calls.compactMap { call -> RemoteReply.Call? in
            var call = call
            if call.arguments.trimmingCharacters(in: .whitespaces).isEmpty { call.arguments = "{}" }
            return (try? OrderedJSONParser.parse(call.arguments)) == nil ? nil : call
        }
        let result = RoundResult(content: content, thinking: reply.reasoning, rawText: reply.content, calls: [],
                                 stopReason: stopReason, stopSequence: stopSequence, seed: seed,
                                 statistics: reading.statistics(), history: [], logProbabilities: reply.logProbabilities)
        return (result, cancelled ? [] : complete)
    }
}

extension RemoteRound {
    /// The reading of one response: the assembled reply, and when its output arrived.
    struct Reading {
        private(set) var reply: RemoteReply
        let emit: @Sendable (Conversation.Event) -> Void
        /// Whether the server said the answer is over (`[DONE]`, or a whole completion).
        var isComplete = false
        private let limits: RemoteModel.Limits
        private let start = ContinuousClock.now
        private var firstOutput: ContinuousClock.Instant?
        private var lastOutput: ContinuousClock.Instant?

        init(limits: RemoteModel.Limits, emit: @escaping @Sendable (Conversation.Event) -> Void) {
            self.reply = RemoteReply(limits: limits)
            self.limits = limits
            self.emit = emit
        }

        /// Reads an event stream to its `[DONE]` or its end (or until the task is cancelled).
        mutating func stream(_ response: inout HTTPResponseStream) async throws {
            var parser = ServerSentEventParser(maximumLineBytes: limits.maximumEventBytes, maximumEventBytes: limits.maximumEventBytes)
            var received = 0
            while let data = try await response.next() {
                received += data.count
                guard received <= limits.maximumResponseBytes else {
                    throw RemoteModel.Error.invalidResponse(reason: "the answer is larger than \(limits.maximumResponseBytes) bytes "
                                                            + "(limits.maximumResponseBytes)")
                }
                for event in try parser.feed(data) {
                    if event.data == "[DONE]" {
                        isComplete = true
                        return
                    }
                    try absorb(ChatCompletionChunk.decode(event.data))
                }
            }
        }

        /// Adds a chunk to the reply and emits its events.
        mutating func absorb(_ chunk: ChatCompletionChunk) throws {
            let events = try reply.apply(chunk)
            if RemoteReply.carriesOutput(chunk) {
                let now = ContinuousClock.now
                firstOutput = firstOutput ?? now
                lastOutput = now
            }
            events.forEach(emit)
        }

        /// The server's counts, and the times measured here: to the first output, and from it to the last.
        func statistics() -> GenerationStatistics {
            var statistics = GenerationStatistics()
            if let usage = reply.usage {
                statistics.promptTokens = usage.promptTokens ?? 0
                statistics.cachedPromptTokens = min(usage.cachedTokens ?? 0, statistics.promptTokens)
                statistics.generatedTokens = usage.completionTokens ?? 0
                statistics.thinkingTokens = usage.reasoningTokens ?? 0
            }
            if let firstOutput, let lastOutput {
                statistics.timeToFirstToken = firstOutput - start
                statistics.generationDuration = lastOutput - firstOutput
                statistics.generationTokensPerSecond = statistics.generationDuration.rate(of: statistics.generatedTokens - 1)
            }
            if let milliseconds = reply.timings?.promptMilliseconds, milliseconds.isFinite, milliseconds >= 0 {
                // llama-server's own measure of the prompt's evaluation.
                statistics.promptDuration = .milliseconds(milliseconds)
                statistics.promptTokensPerSecond = statistics.promptDuration.rate(of: statistics.evaluatedPromptTokens)
            }
            return statistics
        }
    }
}
