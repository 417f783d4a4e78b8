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
    static func usage(_ statistics: GenerationStatistics) -> ChatCompletionChunk.Usage {
        ChatCompletionChunk.Usage(promptTokens: statistics.promptTokens, completionTokens: statistics.generatedTokens,
                                  cachedTokens: statistics.cachedPromptTokens, reasoningTokens: statistics.thinkingTokens)
    }

    /// `usage` as a JSON value, for the responses built of JSON values (text completions).
    static func usageJSON(_ statistics: GenerationStatistics) -> OrderedJSON {
        let text = String(decoding: (try? JSONEncoder().encode(usage(statistics))) ?? Data("{}".utf8), as: UTF8.self)
        return (try? OrderedJSONParser.parse(text)) ?? .null
    }

    /// One streamed piece of tool call `index`: its id and name in the first piece only.
    static func toolCallPiece(index: Int, id: String?, name: String?, arguments: String) -> ChatCompletionChunk.ToolCallDelta {
        ChatCompletionChunk.ToolCallDelta(index: index, id: id, name: name, arguments: arguments)
    }

    /// The pieces that complete a streamed answer's calls: each call not streamed, whole, and
    /// the rest of the arguments of each call that was (nothing where the final arguments do not
    /// extend what was streamed: a client cannot take a piece back).
    static func unstreamedToolCalls(_ calls: [ToolInvocation], streamed: [Int: StreamedToolCall]) -> [ChatCompletionChunk.ToolCallDelta] {
        calls.enumerated().compactMap { index, call in
            guard let sent = streamed[index] else {
                return toolCallPiece(index: index, id: call.modelCallID ?? id(prefix: "call_"), name: call.name, arguments: call.arguments)
            }
            guard call.arguments.hasPrefix(sent.arguments), call.arguments.count > sent.arguments.count else { return nil }
            return toolCallPiece(index: index, id: nil, name: nil, arguments: String(call.arguments.dropFirst(sent.arguments.count)))
        }
    }

    /// A whole chat completion: one choice for each response, in order.
    static func chatCompletion(id: String, model: String, created: Int, responses: [ModelResponse<String>]) -> ChatCompletionChunk {
        let choices = responses.enumerated().map { index, response in
            let calls = response.toolInvocations.map { call in
                ChatCompletionChunk.ToolCallDelta(index: nil, id: call.modelCallID ?? Self.id(prefix: "call_"), name: call.name,
                                                  arguments: call.arguments)
            }
            let message = ChatCompletionChunk.Delta(role: "assistant", content: calls.isEmpty || !response.text.isEmpty ? response.text : nil,
                                                    reasoning: response.thinking.isEmpty ? nil : response.thinking, toolCalls: calls)
            return ChatCompletionChunk.Choice(index: index, delta: message,
                                              logProbabilities: response.logProbabilities.isEmpty ? nil : LogProbabilityJSON.chat(response.logProbabilities),
                                              finishReason: finishReason(response.stopReason))
        }
        return ChatCompletionChunk(id: id, whole: true, created: created, model: model, choices: choices,
                                   usage: usage(combined(responses.map(\.statistics))))
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

    /// The last chunk of a stream with `stream_options.include_usage`: usage, no choices.
    static func usageChunk(id: String, object: String, model: String, created: Int, statistics: GenerationStatistics) -> OrderedJSON {
        .object([("id", .string(id)), ("object", .string(object)), ("created", .integer(created)), ("model", .string(model)),
                 ("choices", .array([])), ("usage", usageJSON(statistics))])
    }

    /// A text completion, whole or one stream chunk, with its choices.
    static func textCompletion(id: String, model: String, created: Int, choices: [OrderedJSON],
                               usage statistics: GenerationStatistics?) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [
            ("id", .string(id)), ("object", .string("text_completion")), ("created", .integer(created)), ("model", .string(model)),
            ("choices", .array(choices)),
        ]
        if let statistics { fields.append(("usage", usageJSON(statistics))) }
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
