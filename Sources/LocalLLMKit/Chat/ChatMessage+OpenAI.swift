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
                    let value = try function.decode(JSONText.self, forKey: .arguments)
                    arguments = value.text
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

/// Any JSON value, kept as its compact text.
struct JSONText: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let value = try JSONAny(from: decoder)
        let data = try JSONSerialization.data(withJSONObject: value.object, options: [.fragmentsAllowed, .sortedKeys])
        text = String(decoding: data, as: UTF8.self)
    }
}

/// A decoded JSON value as Foundation objects, for re-serialization.
private struct JSONAny: Decodable {
    let object: Any

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: Any] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(JSONAny.self, forKey: key).object }
            object = dictionary
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [Any] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(JSONAny.self).object) }
            object = array
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { object = NSNull() }
            else if let flag = try? single.decode(Bool.self) { object = flag }
            else if let number = try? single.decode(Int64.self) { object = number }
            else if let number = try? single.decode(Double.self) { object = number }
            else { object = try single.decode(String.self) }
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
