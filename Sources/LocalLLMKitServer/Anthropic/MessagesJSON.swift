import LocalLLMKit

/// Anthropic's Messages objects: a whole message, the events of a streamed one, `usage`, stop
/// reasons and errors (`{"type": "error", "error": {"type", "message"}}`).
enum MessagesJSON {
    /// Anthropic's `stop_reason` for a response.
    static func stopReason(_ response: ModelResponse<String>) -> String {
        if !response.toolInvocations.isEmpty { return "tool_use" }
        switch response.stopReason {
        case .maximumTokens: return "max_tokens"
        case .stopSequence: return "stop_sequence"
        case .toolCalls: return "tool_use"
        case .endOfText, .cancelled, .toolRounds: return "end_turn"
        }
    }

    /// `usage`: the prompt's tokens not read from the cache, those that were, and the output's.
    static func usage(_ statistics: GenerationStatistics, output: Int? = nil) -> OrderedJSON {
        .object([
            ("input_tokens", .integer(statistics.promptTokens - statistics.cachedPromptTokens)),
            ("cache_creation_input_tokens", .integer(0)),
            ("cache_read_input_tokens", .integer(statistics.cachedPromptTokens)),
            ("output_tokens", .integer(output ?? statistics.generatedTokens)),
        ])
    }

    /// A tool call's `input`: its arguments, an object (`{}` where they are not one).
    static func input(_ arguments: String) -> OrderedJSON {
        if let value = try? OrderedJSONParser.parse(arguments), case .object = value { return value }
        return .object([])
    }

    /// The content blocks of a whole message: thinking, text, then the tool calls.
    static func content(_ response: ModelResponse<String>, callIDs: [String]) -> [OrderedJSON] {
        var blocks: [OrderedJSON] = []
        if !response.thinking.isEmpty {
            blocks.append(.object([("type", .string("thinking")), ("thinking", .string(response.thinking)), ("signature", .string(""))]))
        }
        if !response.text.isEmpty || response.toolInvocations.isEmpty {
            blocks.append(.object([("type", .string("text")), ("text", .string(response.text))]))
        }
        for (index, call) in response.toolInvocations.enumerated() {
            blocks.append(.object([("type", .string("tool_use")), ("id", .string(callIDs[index])), ("name", .string(call.name)),
                                   ("input", input(call.arguments))]))
        }
        return blocks
    }

    /// A message object: whole (with its content and stop reason) or, for `message_start`, empty.
    static func message(id: String, model: String, content: [OrderedJSON], stopReason: String?, stopSequence: String?,
                        usage: OrderedJSON) -> OrderedJSON {
        .object([
            ("id", .string(id)), ("type", .string("message")), ("role", .string("assistant")), ("model", .string(model)),
            ("content", .array(content)), ("stop_reason", stopReason.map(OrderedJSON.string) ?? .null),
            ("stop_sequence", stopSequence.map(OrderedJSON.string) ?? .null), ("usage", usage),
        ])
    }

    /// A fresh id with Anthropic's prefix (`msg_…`, `toolu_…`).
    static func id(prefix: String) -> String {
        prefix + String(CompletionJSON.id(prefix: "").prefix(24))
    }

    /// An error in Anthropic's shape, with its error type for the status.
    static func error(_ error: APIError) -> OrderedJSON {
        let type = switch error.status {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 413: "request_too_large"
        case 429: "rate_limit_error"
        case 503: "overloaded_error"
        case 500...: "api_error"
        default: "invalid_request_error"
        }
        return .object([("type", .string("error")), ("error", .object([("type", .string(type)), ("message", .string(error.message))]))])
    }
}
