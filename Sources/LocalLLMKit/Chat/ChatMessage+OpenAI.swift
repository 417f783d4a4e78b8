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
    /// `{"type": "text", "text"}` and `{"type": "image_url", "image_url": {"url": "data:…"}}`
    /// parts (text parts are joined with newlines; images become ``attachments``);
    /// `arguments` may be a JSON string or an object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        role = try container.decode(Role.self, forKey: .role)
        attachments = []
        if let text = try? container.decodeIfPresent(String.self, forKey: .content) {
            content = text
        } else if let parts = try? container.decodeIfPresent([Part].self, forKey: .content) {
            content = parts.compactMap(\.text).joined(separator: "\n")
            for part in parts {
                guard let url = part.imageURL else { continue }
                do {
                    attachments.append(try MediaAttachment(dataURL: url))
                } catch {
                    throw DecodingError.dataCorruptedError(forKey: .content, in: container, debugDescription: "an image_url part: \(error)")
                }
            }
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
        if attachments.isEmpty {
            try container.encode(content, forKey: .content)
        } else {
            // OpenAI's content parts: the attachments (as data URLs), then the text.
            var parts = container.nestedUnkeyedContainer(forKey: .content)
            for attachment in attachments {
                var part = parts.nestedContainer(keyedBy: PartKeys.self)
                try part.encode("image_url", forKey: .type)
                var url = part.nestedContainer(keyedBy: URLKeys.self, forKey: .imageURL)
                try url.encode(attachment.dataURL, forKey: .url)
            }
            var text = parts.nestedContainer(keyedBy: PartKeys.self)
            try text.encode("text", forKey: .type)
            try text.encode(content, forKey: .text)
        }
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

    private enum PartKeys: String, CodingKey {
        case type, text
        case imageURL = "image_url"
    }

    private enum URLKeys: String, CodingKey { case url }

    /// A content part: `{"type": "text", "text"}` or `{"type": "image_url", "image_url": {"url"}}`
    /// (the URL a data URL; a bare string is read too).
    private struct Part: Decodable {
        let text: String?
        let imageURL: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: PartKeys.self)
            switch try container.decode(String.self, forKey: .type) {
            case "text":
                text = try container.decode(String.self, forKey: .text)
                imageURL = nil
            case "image_url":
                text = nil
                if let url = try? container.decode(String.self, forKey: .imageURL) {
                    imageURL = url
                } else {
                    imageURL = try container.nestedContainer(keyedBy: URLKeys.self, forKey: .imageURL).decode(String.self, forKey: .url)
                }
            case let type:
                throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "a content part of type '\(type)'")
            }
        }
    }
}
