import Foundation

/// ChatMessage reads and writes OpenAI's message objects:
/// `{"role", "content", "reasoning_content", "tool_calls": [{"id", "type": "function",
/// "function": {"name", "arguments"}}], "tool_call_id", "name"}`.
extension ChatMessage: Codable {
    private enum Keys: String, CodingKey {
        case role, content, name
        case reasoningContent = "reasoning_content"
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
    }

    private enum CallKeys: String, CodingKey { case id, type, function }
    private enum FunctionKeys: String, CodingKey { case name, arguments }

    /// Reads an OpenAI-style message. `content` may be a string, null, or an array of
    /// `{"type": "text", "text"}` parts; `arguments` may be a JSON string or an object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        role = try container.decode(Role.self, forKey: .role)
        if let text = try? container.decodeIfPresent(String.self, forKey: .content) {
            content = text
        } else if let parts = try? container.decodeIfPresent([TextPart].self, forKey: .content) {
            content = parts.map(\.text).joined(separator: "\n")
        } else if try !container.contains(.content) || container.decodeNil(forKey: .content) {
            content = ""
        } else {
            throw DecodingError.dataCorruptedError(forKey: .content, in: container,
                                                   debugDescription: "content must be a string, null, or an array of text parts")
        }
        thinking = try container.decodeIfPresent(String.self, forKey: .reasoningContent)
        toolCallID = try container.decodeIfPresent(String.self, forKey: .toolCallID)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        toolCalls = []
        if container.contains(.toolCalls) {
            var calls = try container.nestedUnkeyedContainer(forKey: .toolCalls)
            while !calls.isAtEnd {
                let call = try calls.nestedContainer(keyedBy: CallKeys.self)
                let function = try call.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
                let arguments: String
                if let text = try? function.decode(String.self, forKey: .arguments) {
                    arguments = text
                } else {
                    arguments = try function.decode(OrderedJSON.self, forKey: .arguments).serialized()
                }
                toolCalls.append(ToolCall(name: try function.decode(String.self, forKey: .name), arguments: arguments,
                                          id: try call.decodeIfPresent(String.self, forKey: .id)))
            }
        }
    }

    /// Writes an OpenAI-style message.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(role, forKey: .role)
        try container.encode(content, forKey: .content)
        try container.encodeIfPresent(thinking, forKey: .reasoningContent)
        try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
        try container.encodeIfPresent(name, forKey: .name)
        if !toolCalls.isEmpty {
            var calls = container.nestedUnkeyedContainer(forKey: .toolCalls)
            for toolCall in toolCalls {
                var call = calls.nestedContainer(keyedBy: CallKeys.self)
                try call.encodeIfPresent(toolCall.id, forKey: .id)
                try call.encode("function", forKey: .type)
                var function = call.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
                try function.encode(toolCall.name, forKey: .name)
                try function.encode(toolCall.arguments, forKey: .arguments)
            }
        }
    }

    private struct TextPart: Decodable {
        let text: String
    }
}
