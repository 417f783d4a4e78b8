import Foundation

/// One event of a streamed OpenAI chat completion (`chat.completion.chunk`), or a whole
/// non-streamed `chat.completion` (its `message` read as one delta): only the fields a
/// conversation uses; every field is optional, since servers differ in what they send.
struct ChatCompletionChunk: Decodable, Sendable {
    var choices: [Choice]
    var usage: Usage?
    /// llama-server's own timings (milliseconds), sent with the last chunk.
    var timings: Timings?
    /// An error the server reported inside the stream.
    var error: ServerError?

    struct Choice: Decodable, Sendable {
        var index: Int
        var delta: Delta
        var finishReason: String?
        /// vLLM's `stop_reason`: the stop string that ended generation, when one did.
        var stopString: String?

        private enum Keys: String, CodingKey {
            case index, delta, message
            case finishReason = "finish_reason"
            case stopReason = "stop_reason"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
            delta = try container.decodeIfPresent(Delta.self, forKey: .delta)
                ?? container.decodeIfPresent(Delta.self, forKey: .message) ?? Delta()
            finishReason = try container.decodeIfPresent(String.self, forKey: .finishReason)
            stopString = try? container.decodeIfPresent(String.self, forKey: .stopReason)
        }
    }

    struct Delta: Decodable, Sendable {
        var content: String?
        /// `reasoning_content` (llama-server, DeepSeek) or `reasoning` (vLLM, OpenRouter).
        var reasoning: String?
        var toolCalls: [ToolCallDelta] = []

        private enum Keys: String, CodingKey {
            case content, reasoning
            case reasoningContent = "reasoning_content"
            case toolCalls = "tool_calls"
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            content = try container.decodeIfPresent(String.self, forKey: .content)
            reasoning = try container.decodeIfPresent(String.self, forKey: .reasoningContent)
                ?? container.decodeIfPresent(String.self, forKey: .reasoning)
            toolCalls = try container.decodeIfPresent([ToolCallDelta].self, forKey: .toolCalls) ?? []
        }
    }

    /// A piece of a tool call: the first piece of a call has its id and name, later ones
    /// more of its arguments.
    struct ToolCallDelta: Decodable, Sendable {
        var index: Int?
        var id: String?
        var name: String?
        var arguments: String?

        private enum Keys: String, CodingKey { case index, id, function }
        private enum FunctionKeys: String, CodingKey { case name, arguments }

        init(from decoder: any Decoder) throws {
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
    }

    struct Usage: Decodable, Sendable {
        var promptTokens: Int?
        var completionTokens: Int?
        var cachedTokens: Int?
        var reasoningTokens: Int?

        private enum Keys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
            case promptDetails = "prompt_tokens_details"
            case completionDetails = "completion_tokens_details"
        }
        private enum PromptDetailKeys: String, CodingKey { case cachedTokens = "cached_tokens" }
        private enum CompletionDetailKeys: String, CodingKey { case reasoningTokens = "reasoning_tokens" }

        init(from decoder: any Decoder) throws {
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
    }

    struct Timings: Decodable, Sendable {
        var promptMilliseconds: Double?
        var promptPerSecond: Double?

        private enum CodingKeys: String, CodingKey {
            case promptMilliseconds = "prompt_ms"
            case promptPerSecond = "prompt_per_second"
        }
    }

    struct ServerError: Decodable, Sendable {
        var type: String?
        var message: String

        private enum Keys: String, CodingKey { case type, message }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                (type, message) = (nil, text)
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            type = try? container.decodeIfPresent(String.self, forKey: .type)
            message = (try? container.decodeIfPresent(String.self, forKey: .message)) ?? "no message"
        }
    }

    private enum Keys: String, CodingKey { case choices, usage, timings, error }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        choices = try container.decodeIfPresent([Choice].self, forKey: .choices) ?? []
        usage = try container.decodeIfPresent(Usage.self, forKey: .usage)
        timings = try? container.decodeIfPresent(Timings.self, forKey: .timings)
        error = try container.decodeIfPresent(ServerError.self, forKey: .error)
    }

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
