import Foundation
import LocalLLMKit

/// A `POST /v1/messages` body (Anthropic's Messages API), checked, as the library's values:
/// `system` and `messages` (text, base64 images, `tool_use`, `tool_result` and `thinking`
/// blocks) become ``ChatMessage``s; `tools` with their `input_schema`, `tool_choice`,
/// `max_tokens` (required), `stop_sequences`, `temperature`, `top_p`, `top_k`, `thinking` and
/// `stream`.
struct MessagesRequest: Sendable {
    var messages: [ChatMessage]
    var options: CompletionOptions
    var tools: [DynamicTool]
    var toolChoice: Conversation.ToolChoice
    var thinking: Conversation.Thinking
    var stream: Bool

    init(_ body: RequestBody, templateThinks: Bool) throws(APIError) {
        messages = try Self.system(body) + Self.messages(body)
        options = CompletionOptions()
        guard let maximum = try body.integer("max_tokens", in: 1...(1 << 24)) else {
            throw .invalid("'max_tokens' is required.", param: "max_tokens")
        }
        options.maximumResponseTokens = maximum
        options.sampling.temperature = try body.number("temperature", in: 0...2)
        options.sampling.topP = try body.number("top_p", in: 0...1)
        options.sampling.topK = try body.integer("top_k", in: 0...Int(Int32.max))
        options.stopSequences = try Self.stopSequences(body)
        do {
            try options.validate()
        } catch LocalModel.Error.invalidOption(let name, let reason) {
            let field = SamplingWireField.setting(name)?.name ?? name
            throw .invalid("'\(field)' cannot be used: \(reason).", param: field)
        } catch {
            throw APIError(error)
        }
        tools = try Self.tools(body)
        toolChoice = try Self.toolChoice(body, hasTools: !tools.isEmpty)
        thinking = try Self.thinking(body, templateThinks: templateThinks)
        stream = try body.bool("stream") ?? false
    }

    private static func system(_ body: RequestBody) throws(APIError) -> [ChatMessage] {
        switch body["system"] {
        case nil: return []
        case .string(let text)?: return text.isEmpty ? [] : [.system(text)]
        case .array(let blocks)?: return [.system(try text(of: blocks, param: "system"))]
        default: throw .invalid("'system' must be a string or an array of text blocks.", param: "system")
        }
    }

    /// The texts of text blocks, joined.
    private static func text(of blocks: [OrderedJSON], param: String) throws(APIError) -> String {
        var texts: [String] = []
        for block in blocks {
            guard case .object(let fields) = block, try RequestBody(fields: fields).string("type") == "text",
                  let text = try RequestBody(fields: fields).string("text") else {
                throw .invalid("'\(param)' must hold text blocks ({\"type\": \"text\", \"text\": ...}).", param: param)
            }
            texts.append(text)
        }
        return texts.joined(separator: "\n")
    }

    private static func messages(_ body: RequestBody) throws(APIError) -> [ChatMessage] {
        guard case .array(let items)? = body["messages"], !items.isEmpty else {
            throw .invalid("'messages' is required and must be a non-empty array.", param: "messages")
        }
        guard items.count <= ChatCompletionBody.maximumMessages else {
            throw .invalid("'messages' holds more than \(ChatCompletionBody.maximumMessages) messages.", param: "messages")
        }
        var messages: [ChatMessage] = []
        var toolNames: [String: String] = [:]          // tool_use id → tool name, for the results
        for (index, item) in items.enumerated() {
            let param = "messages[\(index)]"
            guard case .object(let fields) = item else { throw .invalid("\(param) must be an object.", param: param) }
            let message = RequestBody(fields: fields)
            let role = try message.string("role")
            let blocks: [OrderedJSON]
            switch message["content"] {
            case .string(let text)?: blocks = [.object([("type", .string("text")), ("text", .string(text))])]
            case .array(let array)?: blocks = array
            default: throw .invalid("\(param).content must be a string or an array of content blocks.", param: param)
            }
            switch role {
            case "user": messages += try userMessages(blocks, toolNames: toolNames, param: param)
            case "assistant":
                let reply = try assistantMessage(blocks, param: param)
                for call in reply.toolCalls { if let id = call.id { toolNames[id] = call.name } }
                messages.append(reply)
            default: throw .invalid("\(param).role must be user or assistant (the system prompt is 'system').", param: param)
            }
        }
        return messages
    }

    /// A user turn: its `tool_result` blocks as tool messages first, then its text and images.
    private static func userMessages(_ blocks: [OrderedJSON], toolNames: [String: String], param: String) throws(APIError) -> [ChatMessage] {
        var results: [ChatMessage] = []
        var texts: [String] = []
        var attachments: [MediaAttachment] = []
        for (number, block) in blocks.enumerated() {
            let place = "\(param).content[\(number)]"
            guard case .object(let fields) = block else { throw .invalid("\(place) must be a content block.", param: param) }
            let part = RequestBody(fields: fields)
            switch try part.string("type") {
            case "text":
                texts.append(try part.requiredString("text"))
            case "image":
                attachments.append(try image(part, param: param, place: place))
            case "tool_result":
                let id = try part.requiredString("tool_use_id")
                var content: String
                switch part["content"] {
                case nil: content = ""
                case .string(let text)?: content = text
                case .array(let inner)?: content = try text(of: inner, param: param)
                default: throw .invalid("\(place).content must be a string or text blocks.", param: param)
                }
                if try part.bool("is_error") == true { content = "Error: " + content }
                results.append(.tool(content, callID: id, name: toolNames[id]))
            default:
                throw .invalid("\(place) must be a text, image or tool_result block.", param: param)
            }
        }
        guard !texts.isEmpty || !attachments.isEmpty else { return results }
        return results + [ChatMessage(role: .user, content: texts.joined(separator: "\n"), attachments: attachments)]
    }

    /// `{"type": "image", "source": {"type": "base64", "media_type", "data"}}`.
    private static func image(_ part: RequestBody, param: String, place: String) throws(APIError) -> MediaAttachment {
        guard let source = try part.object("source"), try source.string("type") == "base64",
              let encoded = try source.string("data") else {
            throw .invalid("\(place) must be {\"type\": \"image\", \"source\": {\"type\": \"base64\", \"media_type\": ..., \"data\": ...}} "
                           + "(URL sources are not fetched).", param: param)
        }
        guard encoded.utf8.count <= (MediaAttachment.Limits.default.bytes / 3 + 1) * 4,
              let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            throw .invalid("\(place).source.data is not base64 of at most \(MediaAttachment.Limits.default.bytes) bytes.", param: param)
        }
        return .image(data)
    }

    /// An assistant turn: its text, its thinking and its `tool_use` blocks as calls.
    private static func assistantMessage(_ blocks: [OrderedJSON], param: String) throws(APIError) -> ChatMessage {
        var texts: [String] = []
        var thinking: [String] = []
        var calls: [ChatMessage.ToolCall] = []
        for (number, block) in blocks.enumerated() {
            let place = "\(param).content[\(number)]"
            guard case .object(let fields) = block else { throw .invalid("\(place) must be a content block.", param: param) }
            let part = RequestBody(fields: fields)
            switch try part.string("type") {
            case "text": texts.append(try part.requiredString("text"))
            case "thinking": thinking.append(try part.string("thinking") ?? "")
            case "redacted_thinking": break
            case "tool_use":
                let input = part["input"] ?? .object([])
                guard case .object = input else { throw .invalid("\(place).input must be an object.", param: param) }
                calls.append(.init(name: try part.requiredString("name"), arguments: input.serialized(), id: try part.requiredString("id")))
            default:
                throw .invalid("\(place) must be a text, thinking or tool_use block.", param: param)
            }
        }
        return ChatMessage(role: .assistant, content: texts.joined(separator: "\n"),
                           thinking: thinking.isEmpty ? nil : thinking.joined(separator: "\n"), toolCalls: calls)
    }

    private static func stopSequences(_ body: RequestBody) throws(APIError) -> [String] {
        guard let value = body["stop_sequences"] else { return [] }
        guard case .array(let items) = value, items.count <= 16,
              items.allSatisfy({ if case .string(let text) = $0 { !text.isEmpty } else { false } }) else {
            throw .invalid("'stop_sequences' must be an array of up to 16 non-empty strings.", param: "stop_sequences")
        }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    private static func tools(_ body: RequestBody) throws(APIError) -> [DynamicTool] {
        guard let value = body["tools"] else { return [] }
        guard case .array(let items) = value, items.count <= ChatCompletionBody.maximumTools else {
            throw .invalid("'tools' must be an array of at most \(ChatCompletionBody.maximumTools) tools.", param: "tools")
        }
        var tools: [DynamicTool] = []
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item else { throw .invalid("tools[\(index)] must be an object.", param: "tools[\(index)]") }
            let tool = RequestBody(fields: fields)
            let schema = tool["input_schema"] ?? .object([("type", .string("object"))])
            guard case .object = schema else {
                throw .invalid("tools[\(index)].input_schema must be a JSON Schema object.", param: "tools[\(index)]")
            }
            // The server offers the tools; the client runs them. A body that runs is never called.
            tools.append(DynamicTool(name: try tool.requiredString("name"), description: try tool.string("description") ?? "",
                                     parametersSchema: schema.serialized()) { _ in "" })
        }
        return tools
    }

    private static func toolChoice(_ body: RequestBody, hasTools: Bool) throws(APIError) -> Conversation.ToolChoice {
        guard let choice = try body.object("tool_choice") else { return hasTools ? .auto : .none }
        switch try choice.string("type") {
        case "auto": return hasTools ? .auto : .none
        case "any": return .required
        case "none": return .none
        case "tool": return .named(try choice.requiredString("name"))
        default:
            throw .invalid("'tool_choice.type' must be auto, any, tool or none.", param: "tool_choice")
        }
    }

    /// Off unless asked for, as with Anthropic's models: `{"type": "enabled", "budget_tokens": N}`
    /// on a template that thinks.
    private static func thinking(_ body: RequestBody, templateThinks: Bool) throws(APIError) -> Conversation.Thinking {
        guard let thinking = try body.object("thinking") else { return .disabled }
        switch try thinking.string("type") {
        case "enabled":
            let budget = try thinking.integer("budget_tokens", in: 0...(1 << 24))
            return templateThinks ? .enabled(budget: budget) : .disabled
        case "disabled": return .disabled
        default: throw .invalid("'thinking.type' must be enabled or disabled.", param: "thinking")
        }
    }
}
