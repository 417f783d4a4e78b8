import Foundation
import LocalLLMKit

/// OpenAI's response objects: whole completions, stream chunks, usage, finish reasons.
enum CompletionJSON {
    /// A fresh id with OpenAI's prefix (`chatcmpl-…`, `cmpl-…`).
    static func id(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + String((0..<24).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement(using: &generator)! })
    }

    /// OpenAI's `finish_reason` for a stop reason.
    static func finishReason(_ reason: StopReason) -> String {
        switch reason {
        case .maximumTokens: return "length"
        case .toolCalls: return "tool_calls"
        case .endOfText, .stopSequence, .cancelled, .toolRounds: return "stop"
        }
    }

    /// `usage`, with cached prompt tokens and reasoning tokens in their details.
    static func usage(_ statistics: GenerationStatistics) -> OrderedJSON {
        .object([
            ("prompt_tokens", .integer(statistics.promptTokens)),
            ("completion_tokens", .integer(statistics.generatedTokens)),
            ("total_tokens", .integer(statistics.promptTokens + statistics.generatedTokens)),
            ("prompt_tokens_details", .object([("cached_tokens", .integer(statistics.cachedPromptTokens))])),
            ("completion_tokens_details", .object([("reasoning_tokens", .integer(statistics.thinkingTokens))])),
        ])
    }

    /// The tool calls of a message (`index` is added for stream deltas).
    static func toolCalls(_ calls: [ToolInvocation], indexed: Bool) -> OrderedJSON {
        .array(calls.enumerated().map { index, call in
            var fields: [(String, OrderedJSON)] = indexed ? [("index", .integer(index))] : []
            fields += [
                ("id", .string(call.modelCallID ?? id(prefix: "call_"))),
                ("type", .string("function")),
                ("function", .object([("name", .string(call.name)), ("arguments", .string(call.arguments))])),
            ]
            return .object(fields)
        })
    }

    /// One streamed piece of tool call `index`: its id and name in the first piece only.
    static func toolCallPiece(index: Int, id: String?, name: String?, arguments: String) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [("index", .integer(index))]
        if let id { fields += [("id", .string(id)), ("type", .string("function"))] }
        var function: [(String, OrderedJSON)] = []
        if let name { function.append(("name", .string(name))) }
        function.append(("arguments", .string(arguments)))
        return .object(fields + [("function", .object(function))])
    }

    /// The pieces that complete a streamed answer's calls: each call not streamed, whole, and
    /// the rest of the arguments of each call that was (nothing where the final arguments do not
    /// extend what was streamed: a client cannot take a piece back).
    static func unstreamedToolCalls(_ calls: [ToolInvocation], streamed: [Int: StreamedToolCall]) -> [OrderedJSON] {
        calls.enumerated().compactMap { index, call in
            guard let sent = streamed[index] else {
                return toolCallPiece(index: index, id: call.modelCallID ?? id(prefix: "call_"), name: call.name, arguments: call.arguments)
            }
            guard call.arguments.hasPrefix(sent.arguments), call.arguments.count > sent.arguments.count else { return nil }
            return toolCallPiece(index: index, id: nil, name: nil, arguments: String(call.arguments.dropFirst(sent.arguments.count)))
        }
    }

    /// A whole chat completion: one choice for each response, in order.
    static func chatCompletion(id: String, model: String, created: Int, responses: [ModelResponse<String>]) -> OrderedJSON {
        let choices = responses.enumerated().map { index, response -> OrderedJSON in
            var message: [(String, OrderedJSON)] = [("role", .string("assistant"))]
            message.append(("content", response.toolInvocations.isEmpty || !response.text.isEmpty ? .string(response.text) : .null))
            if !response.thinking.isEmpty { message.append(("reasoning_content", .string(response.thinking))) }
            if !response.toolInvocations.isEmpty { message.append(("tool_calls", toolCalls(response.toolInvocations, indexed: false))) }
            return .object([
                ("index", .integer(index)), ("message", .object(message)),
                ("logprobs", response.logProbabilities.isEmpty ? .null : LogProbabilityJSON.chat(response.logProbabilities)),
                ("finish_reason", .string(finishReason(response.stopReason))),
            ])
        }
        return .object([
            ("id", .string(id)), ("object", .string("chat.completion")), ("created", .integer(created)), ("model", .string(model)),
            ("choices", .array(choices)), ("usage", usage(combined(responses.map(\.statistics)))),
        ])
    }

    /// The statistics of a request's choices as its `usage` counts them: the prompt once, the
    /// generated tokens of every choice.
    static func combined(_ statistics: [GenerationStatistics]) -> GenerationStatistics {
        guard var total = statistics.first else { return GenerationStatistics() }
        for other in statistics.dropFirst() {
            total.generatedTokens += other.generatedTokens
            total.thinkingTokens += other.thinkingTokens
        }
        return total
    }

    /// One chat stream chunk: a delta, or the finish reason.
    static func chatChunk(id: String, model: String, created: Int, index: Int = 0, delta: [(String, OrderedJSON)],
                          finishReason: String? = nil, logProbabilities: OrderedJSON = .null) -> OrderedJSON {
        .object([
            ("id", .string(id)), ("object", .string("chat.completion.chunk")), ("created", .integer(created)),
            ("model", .string(model)),
            ("choices", .array([.object([
                ("index", .integer(index)), ("delta", .object(delta)), ("logprobs", logProbabilities),
                ("finish_reason", finishReason.map(OrderedJSON.string) ?? .null),
            ])])),
        ])
    }

    /// The last chunk of a stream with `stream_options.include_usage`: usage, no choices.
    static func usageChunk(id: String, object: String, model: String, created: Int, statistics: GenerationStatistics) -> OrderedJSON {
        .object([("id", .string(id)), ("object", .string(object)), ("created", .integer(created)), ("model", .string(model)),
                 ("choices", .array([])), ("usage", usage(statistics))])
    }

    /// A text completion, whole or one stream chunk, with its choices.
    static func textCompletion(id: String, model: String, created: Int, choices: [OrderedJSON],
                               usage statistics: GenerationStatistics?) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [
            ("id", .string(id)), ("object", .string("text_completion")), ("created", .integer(created)), ("model", .string(model)),
            ("choices", .array(choices)),
        ]
        if let statistics { fields.append(("usage", usage(statistics))) }
        return .object(fields)
    }

    /// One choice of a text completion: its text (a chunk of it when streamed) and, at its end,
    /// its finish reason and log-probabilities.
    static func textChoice(index: Int, text: String, finishReason: String?, logProbabilities: [TokenLogProbability] = [],
                           textOffset: Int = 0) -> OrderedJSON {
        .object([
            ("text", .string(text)), ("index", .integer(index)),
            ("logprobs", logProbabilities.isEmpty ? .null : LogProbabilityJSON.completion(logProbabilities, textOffset: textOffset)),
            ("finish_reason", finishReason.map(OrderedJSON.string) ?? .null),
        ])
    }
}

/// The log-probabilities of a streamed text choice that its next chunk carries, and where that
/// chunk's first token starts in the choice's text (OpenAI's `text_offset` counts from there).
struct LogProbabilityChunks {
    var entries: [TokenLogProbability] = []
    var textOffset = 0

    /// The entries to send now, and their offset; the next ones start after their text.
    mutating func take() -> (entries: [TokenLogProbability], textOffset: Int) {
        defer {
            textOffset += entries.reduce(0) { $0 + LogProbabilityJSON.text($1.chosen.bytes).count }
            entries = []
        }
        return (entries, textOffset)
    }
}

/// A tool call whose pieces a stream has sent: its id, and its arguments so far.
struct StreamedToolCall {
    let id: String
    var arguments = ""
}
