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

    /// A whole chat completion.
    static func chatCompletion(id: String, model: String, created: Int, response: ModelResponse<String>) -> OrderedJSON {
        var message: [(String, OrderedJSON)] = [("role", .string("assistant"))]
        message.append(("content", response.toolInvocations.isEmpty || !response.text.isEmpty ? .string(response.text) : .null))
        if !response.thinking.isEmpty { message.append(("reasoning_content", .string(response.thinking))) }
        if !response.toolInvocations.isEmpty { message.append(("tool_calls", toolCalls(response.toolInvocations, indexed: false))) }
        return .object([
            ("id", .string(id)), ("object", .string("chat.completion")), ("created", .integer(created)), ("model", .string(model)),
            ("choices", .array([.object([
                ("index", .integer(0)), ("message", .object(message)), ("logprobs", .null),
                ("finish_reason", .string(finishReason(response.stopReason))),
            ])])),
            ("usage", usage(response.statistics)),
        ])
    }

    /// One chat stream chunk: a delta, or the finish reason.
    static func chatChunk(id: String, model: String, created: Int, delta: [(String, OrderedJSON)],
                          finishReason: String? = nil) -> OrderedJSON {
        .object([
            ("id", .string(id)), ("object", .string("chat.completion.chunk")), ("created", .integer(created)),
            ("model", .string(model)),
            ("choices", .array([.object([
                ("index", .integer(0)), ("delta", .object(delta)), ("logprobs", .null),
                ("finish_reason", finishReason.map(OrderedJSON.string) ?? .null),
            ])])),
        ])
    }

    /// The last chunk of a stream with `stream_options.include_usage`: usage, no choices.
    static func usageChunk(id: String, object: String, model: String, created: Int, statistics: GenerationStatistics) -> OrderedJSON {
        .object([("id", .string(id)), ("object", .string(object)), ("created", .integer(created)), ("model", .string(model)),
                 ("choices", .array([])), ("usage", usage(statistics))])
    }

    /// A text completion, whole (`finishReason` set) or one stream chunk.
    static func textCompletion(id: String, model: String, created: Int, text: String, finishReason: String?,
                               usage statistics: GenerationStatistics?) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [
            ("id", .string(id)), ("object", .string("text_completion")), ("created", .integer(created)), ("model", .string(model)),
            ("choices", .array([.object([
                ("text", .string(text)), ("index", .integer(0)), ("logprobs", .null),
                ("finish_reason", finishReason.map(OrderedJSON.string) ?? .null),
            ])])),
        ]
        if let statistics { fields.append(("usage", usage(statistics))) }
        return .object(fields)
    }
}
