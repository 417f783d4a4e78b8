import Foundation

/// OpenAI's chat completion on the wire: one event of a stream (`chat.completion.chunk`), or a
/// whole `chat.completion` (its choices' `message` read as one delta). One type for both ends:
/// `llmkit serve` encodes it and `RemoteModel` decodes it, so a field the server writes is one
/// the client reads. Decoding is lenient (every field optional, since servers differ in what
/// they send); encoding writes OpenAI's shape.
package struct ChatCompletionChunk: Codable, Sendable {
    package var id: String?
    /// `chat.completion.chunk`, or `chat.completion` for a whole answer (whose choices then
    /// carry a `message` instead of a `delta`).
    package var object: String?
    package var created: Int?
    package var model: String?
    package var choices: [Choice]
    package var usage: Usage?
    /// llama-server's own timings (milliseconds), sent with the last chunk.
    package var timings: Timings?
    /// An error the server reported inside the stream.
    package var error: ServerError?

    /// A whole answer's object name.
    package static let wholeObject = "chat.completion"
    /// A stream event's object name.
    package static let chunkObject = "chat.completion.chunk"

    package init(id: String, whole: Bool = false, created: Int, model: String, choices: [Choice], usage: Usage? = nil) {
        self.id = id
        self.object = whole ? Self.wholeObject : Self.chunkObject
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }

    package struct Choice: Codable, Sendable {
        package var index: Int
        package var delta: Delta
        /// The tokens' log-probabilities, in OpenAI's `logprobs` shape (`{"content": […]}`).
        package var logProbabilities: OrderedJSON?
        package var finishReason: String?
        /// vLLM's `stop_reason`: the stop string that ended generation, when one did.
        package var stopString: String?

        package init(index: Int, delta: Delta, logProbabilities: OrderedJSON? = nil, finishReason: String? = nil) {
            self.index = index
            self.delta = delta
            self.logProbabilities = logProbabilities
            self.finishReason = finishReason
        }

        private enum Keys: String, CodingKey {
            case index, delta, message, logprobs
            case finishReason = "finish_reason"
            case stopReason = "stop_reason"
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
            delta = try container.decodeIfPresent(Delta.self, forKey: .delta)
                ?? container.decodeIfPresent(Delta.self, forKey: .message) ?? Delta()
            logProbabilities = try? container.decodeIfPresent(OrderedJSON.self, forKey: .logprobs)
            finishReason = try container.decodeIfPresent(String.self, forKey: .finishReason)
            stopString = try? container.decodeIfPresent(String.self, forKey: .stopReason)
        }

        /// A whole answer's choice writes its delta as `message`, with `content` null when the
        /// message only calls tools.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(index, forKey: .index)
            let whole = encoder.userInfo[ChatCompletionChunk.wholeKey] as? Bool ?? false
            try container.encode(delta, forKey: whole ? .message : .delta)
            try container.encode(logProbabilities ?? .null, forKey: .logprobs)
            try container.encode(finishReason, forKey: .finishReason)
        }
    }

    package struct Delta: Codable, Sendable {
        /// `assistant` in a stream's first chunk of a choice, and in a whole answer.
        package var role: String?
        package var content: String?
        /// `reasoning_content` (llama-server, DeepSeek) or `reasoning` (vLLM, OpenRouter).
        package var reasoning: String?
        package var toolCalls: [ToolCallDelta] = []

        package init(role: String? = nil, content: String? = nil, reasoning: String? = nil, toolCalls: [ToolCallDelta] = []) {
            self.role = role
            self.content = content
            self.reasoning = reasoning
            self.toolCalls = toolCalls
        }

        private enum Keys: String, CodingKey {
            case role, content, reasoning
            case reasoningContent = "reasoning_content"
            case toolCalls = "tool_calls"
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            role = try? container.decodeIfPresent(String.self, forKey: .role)
            content = try container.decodeIfPresent(String.self, forKey: .content)
            reasoning = try container.decodeIfPresent(String.self, forKey: .reasoningContent)
                ?? container.decodeIfPresent(String.self, forKey: .reasoning)
            toolCalls = try container.decodeIfPresent([ToolCallDelta].self, forKey: .toolCalls) ?? []
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            let whole = encoder.userInfo[ChatCompletionChunk.wholeKey] as? Bool ?? false
            try container.encodeIfPresent(role, forKey: .role)
            if whole {
                try container.encode(content, forKey: .content)        // null for a message that only calls tools
            } else {
                try container.encodeIfPresent(content, forKey: .content)
            }
            try container.encodeIfPresent(reasoning, forKey: .reasoningContent)
            if !toolCalls.isEmpty { try container.encode(toolCalls, forKey: .toolCalls) }
        }
    }

    /// A piece of a tool call: the first piece of a call has its id and name, later ones more
    /// of its arguments. A whole answer's calls have no index.
    package struct ToolCallDelta: Codable, Sendable {
        package var index: Int?
        package var id: String?
        package var name: String?
        package var arguments: String?

        package init(index: Int?, id: String?, name: String?, arguments: String) {
            self.index = index
            self.id = id
            self.name = name
            self.arguments = arguments
        }

        private enum Keys: String, CodingKey { case index, id, type, function }
        private enum FunctionKeys: String, CodingKey { case name, arguments }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            index = try container.decodeIfPresent(Int.self, forKey: .index)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            guard container.contains(.function) else { return }
            let function = try container.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
            name = try function.decodeIfPresent(String.self, forKey: .name)
            if let text = try? function.decodeIfPresent(String.self, forKey: .arguments) {
                arguments = text
            } else if function.contains(.arguments), try !function.decodeNil(forKey: .arguments) {
                // Some servers send the arguments as an object rather than JSON text.
                arguments = try function.decode(OrderedJSON.self, forKey: .arguments).serialized()
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(index, forKey: .index)
            if let id {
                try container.encode(id, forKey: .id)
                try container.encode("function", forKey: .type)
            }
            var function = container.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
            try function.encodeIfPresent(name, forKey: .name)
            try function.encode(arguments ?? "", forKey: .arguments)
        }
    }

    package struct Usage: Codable, Sendable {
        package var promptTokens: Int?
        package var completionTokens: Int?
        package var cachedTokens: Int?
        package var reasoningTokens: Int?

        package init(promptTokens: Int, completionTokens: Int, cachedTokens: Int, reasoningTokens: Int) {
            self.promptTokens = promptTokens
            self.completionTokens = completionTokens
            self.cachedTokens = cachedTokens
            self.reasoningTokens = reasoningTokens
        }

        private enum Keys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
            case totalTokens = "total_tokens"
            case promptDetails = "prompt_tokens_details"
            case completionDetails = "completion_tokens_details"
        }
        private enum PromptDetailKeys: String, CodingKey { case cachedTokens = "cached_tokens" }
        private enum CompletionDetailKeys: String, CodingKey { case reasoningTokens = "reasoning_tokens" }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            promptTokens = try container.decodeIfPresent(Int.self, forKey: .promptTokens)
            completionTokens = try container.decodeIfPresent(Int.self, forKey: .completionTokens)
            if let details = try? container.nestedContainer(keyedBy: PromptDetailKeys.self, forKey: .promptDetails) {
                cachedTokens = try details.decodeIfPresent(Int.self, forKey: .cachedTokens)
            }
            if let details = try? container.nestedContainer(keyedBy: CompletionDetailKeys.self, forKey: .completionDetails) {
                reasoningTokens = try details.decodeIfPresent(Int.self, forKey: .reasoningTokens)
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(promptTokens, forKey: .promptTokens)
            try container.encodeIfPresent(completionTokens, forKey: .completionTokens)
            if let promptTokens, let completionTokens {
                try container.encode(promptTokens + completionTokens, forKey: .totalTokens)
            }
            var prompt = container.nestedContainer(keyedBy: PromptDetailKeys.self, forKey: .promptDetails)
            try prompt.encode(cachedTokens ?? 0, forKey: .cachedTokens)
            var completion = container.nestedContainer(keyedBy: CompletionDetailKeys.self, forKey: .completionDetails)
            try completion.encode(reasoningTokens ?? 0, forKey: .reasoningTokens)
        }
    }

    package struct Timings: Codable, Sendable {
        package var promptMilliseconds: Double?
        package var promptPerSecond: Double?

        private enum CodingKeys: String, CodingKey {
            case promptMilliseconds = "prompt_ms"
            case promptPerSecond = "prompt_per_second"
        }
    }

    package struct ServerError: Codable, Sendable {
        package var type: String?
        package var message: String

        private enum Keys: String, CodingKey { case type, message }

        package init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                (type, message) = (nil, text)
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            type = try? container.decodeIfPresent(String.self, forKey: .type)
            message = (try? container.decodeIfPresent(String.self, forKey: .message)) ?? "no message"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(message, forKey: .message)
            try container.encodeIfPresent(type, forKey: .type)
        }
    }

    private enum Keys: String, CodingKey { case id, object, created, model, choices, usage, timings, error }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        object = try? container.decodeIfPresent(String.self, forKey: .object)
        created = try? container.decodeIfPresent(Int.self, forKey: .created)
        model = try? container.decodeIfPresent(String.self, forKey: .model)
        choices = try container.decodeIfPresent([Choice].self, forKey: .choices) ?? []
        usage = try container.decodeIfPresent(Usage.self, forKey: .usage)
        timings = try? container.decodeIfPresent(Timings.self, forKey: .timings)
        error = try container.decodeIfPresent(ServerError.self, forKey: .error)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(object, forKey: .object)
        try container.encodeIfPresent(created, forKey: .created)
        try container.encodeIfPresent(model, forKey: .model)
        try container.encode(choices, forKey: .choices)
        try container.encodeIfPresent(usage, forKey: .usage)
        try container.encodeIfPresent(timings, forKey: .timings)
        try container.encodeIfPresent(error, forKey: .error)
    }

    /// The JSON text of this chunk, as the server sends it (a whole answer's choices with
    /// `message`, a stream's with `delta`).
    package func serialized() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.userInfo[Self.wholeKey] = object == Self.wholeObject
        // Every value here encodes: strings, integers and already-checked JSON values.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    fileprivate static let wholeKey = CodingUserInfoKey(rawValue: "llmkit.wholeCompletion")!

    /// Decodes one event's data.
    /// - Throws: ``RemoteModel/Error/invalidResponse(reason:)`` for data that is not such a chunk.
    static func decode(_ text: String) throws -> ChatCompletionChunk {
        do {
            return try JSONDecoder().decode(ChatCompletionChunk.self, from: Data(text.utf8))
        } catch {
            throw RemoteModel.Error.invalidResponse(reason: "an event is not a chat completion chunk (\(error)): \(text.prefix(200))")
        }
    }
}
