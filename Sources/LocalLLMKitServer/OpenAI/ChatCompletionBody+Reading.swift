import Foundation
import LocalLLMKit

/// Reading a `POST /v1/chat/completions` body into the wire value both sides share, checked field
/// by field: each wrong value is a 400 that names its field. What depends on the model (the
/// tools as tools, the tool choice, thinking against the template) is ``ChatCompletionRequest``'s.
extension ChatCompletionBody {
    init(_ body: RequestBody, vocabularySize: Int, adapterCount: Int = 0) throws(APIError) {
        self.init(model: try body.string("model"), messages: try Self.messages(body),
                  parameters: try GenerationParameters(body, vocabularySize: vocabularySize, adapterCount: adapterCount))
        tools = try Self.tools(body)
        toolChoice = try Self.toolChoice(body)
        grammar = try body.grammar()
        if grammar != nil, body["response_format"] != nil {
            throw .invalid("'grammar' and 'response_format' cannot be used together.", param: "grammar")
        }
        responseFormat = try Self.responseFormat(body)
        thinking = try Self.thinking(body)
    }

    private static func messages(_ body: RequestBody) throws(APIError) -> [ChatMessage] {
        guard case .array(let items)? = body["messages"] else {
            throw .invalid("'messages' is required and must be an array of messages.", param: "messages")
        }
        guard !items.isEmpty else { throw .invalid("'messages' must hold at least one message.", param: "messages") }
        guard items.count <= maximumMessages else {
            throw .invalid("'messages' holds more than \(maximumMessages) messages.", param: "messages")
        }
        var messages: [ChatMessage] = []
        for (index, item) in items.enumerated() {
            guard case .object(var fields) = item else {
                throw .invalid("messages[\(index)] must be an object.", param: "messages[\(index)]")
            }
            // OpenAI's newer name for the system role.
            if let role = fields.firstIndex(where: { $0.0 == "role" }), fields[role].1 == .string("developer") {
                fields[role].1 = .string("system")
            }
            try checkContent(RequestBody(fields: fields), index: index)
            do {
                messages.append(try JSONDecoder().decode(ChatMessage.self, from: Data(OrderedJSON.object(fields).serialized().utf8)))
            } catch {
                throw .invalid("messages[\(index)] is not a valid message: \(Self.describe(error))", param: "messages[\(index)]")
            }
        }
        return messages
    }

    /// `content` as OpenAI requires it: present (a string or parts) except on an assistant
    /// message that calls tools; each part `{"type": "text", "text": …}` or
    /// `{"type": "image_url", "image_url": {"url": "data:…"}}` (a remote URL was fetched before).
    private static func checkContent(_ message: RequestBody, index: Int) throws(APIError) {
        let param = "messages[\(index)].content"
        switch message["content"] {
        case nil:
            let callsTools: Bool = if case .array(let calls)? = message["tool_calls"] { !calls.isEmpty } else { false }
            guard try message.string("role") == "assistant", callsTools else {
                throw .invalid("messages[\(index)] has no content.", param: param)
            }
        case .string?:
            return
        case .array(let parts)?:
            for (number, part) in parts.enumerated() {
                guard case .object(let fields) = part else {
                    throw .invalid("\(param)[\(number)] must be an object.", param: param)
                }
                let part = RequestBody(fields: fields)
                switch try part.string("type") {
                case "text":
                    guard try part.string("text") != nil else {
                        throw .invalid("\(param)[\(number)] must be {\"type\": \"text\", \"text\": ...}.", param: param)
                    }
                case "image_url":
                    let url: String? = switch part["image_url"] {
                    case .string(let url)?: url
                    case .object(let inner)?: try RequestBody(fields: inner).string("url")
                    default: nil
                    }
                    guard let url, url.hasPrefix("data:") else {
                        throw .invalid("\(param)[\(number)] must be {\"type\": \"image_url\", \"image_url\": {\"url\": \"data:image/png;base64,...\"}}.",
                                       param: param)
                    }
                default:
                    throw .invalid("\(param)[\(number)] must be a text or an image_url part.", param: param)
                }
            }
        default:
            throw .invalid("\(param) must be a string or an array of text and image_url parts.", param: param)
        }
    }

    static func tools(_ body: RequestBody) throws(APIError) -> [Tool] {
        guard let value = body["tools"] else { return [] }
        guard case .array(let items) = value else { throw .invalid("'tools' must be an array.", param: "tools") }
        guard items.count <= maximumTools else { throw .invalid("'tools' holds more than \(maximumTools) tools.", param: "tools") }
        var tools: [Tool] = []
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item, let function = try RequestBody(fields: fields).object("function"),
                  try RequestBody(fields: fields).string("type") == "function" else {
                throw .invalid("tools[\(index)] must be {\"type\": \"function\", \"function\": {...}}.", param: "tools[\(index)]")
            }
            let name = try function.requiredString("name")
            let parameters = function["parameters"] ?? .object([("type", .string("object")), ("properties", .object([]))])
            guard case .object = parameters else {
                throw .invalid("tools[\(index)].function.parameters must be a JSON Schema object.", param: "tools[\(index)]")
            }
            tools.append(Tool(name: name, description: try function.string("description") ?? "", parameters: parameters))
        }
        return tools
    }

    private static func toolChoice(_ body: RequestBody) throws(APIError) -> ToolChoice? {
        switch body["tool_choice"] {
        case nil: return nil
        case .string("none")?: return ToolChoice.none
        case .string("auto")?: return .auto
        case .string("required")?: return .required
        case .object(let fields)?:
            let choice = RequestBody(fields: fields)
            guard try choice.string("type") == "function", let name = try choice.object("function")?.requiredString("name") else {
                throw .invalid("'tool_choice' must be none, auto, required or {\"type\": \"function\", \"function\": {\"name\": ...}}.",
                               param: "tool_choice")
            }
            return .function(name)
        default:
            throw .invalid("'tool_choice' must be none, auto, required or a function.", param: "tool_choice")
        }
    }

    private static func responseFormat(_ body: RequestBody) throws(APIError) -> ResponseFormat? {
        guard let format = try body.object("response_format") else { return nil }
        switch try format.requiredString("type") {
        case "text": return .text
        case "json_object": return .jsonObject
        case "json_schema":
            guard let spec = try format.object("json_schema") else {
                throw .invalid("'response_format.json_schema' is required for type json_schema.", param: "response_format")
            }
            let schema = spec["schema"]
            switch schema {
            case nil, .object?, .bool?: break
            default: throw .invalid("'response_format.json_schema.schema' must be a JSON Schema object.", param: "response_format")
            }
            return .jsonSchema(name: try spec.string("name"), schema: schema, strict: try spec.bool("strict"))
        case let other:
            throw .invalid("'response_format.type' is \(other); it must be text, json_object or json_schema.", param: "response_format")
        }
    }

    /// `reasoning_effort`, `chat_template_kwargs.enable_thinking`, and the budget as llama-server
    /// reads it: `thinking_budget_tokens` or `reasoning_budget_tokens` (-1: none), with
    /// `reasoning_budget_message`.
    private static func thinking(_ body: RequestBody) throws(APIError) -> Thinking {
        let effort = try body.string("reasoning_effort")
        if let effort, !["none", "minimal", "low", "medium", "high"].contains(effort) {
            throw .invalid("'reasoning_effort' must be none, minimal, low, medium or high.", param: "reasoning_effort")
        }
        let reasoningBudget = try body.integer("reasoning_budget_tokens", in: -1...(1 << 24))
        let thinkingBudget = try body.integer("thinking_budget_tokens", in: -1...(1 << 24))
        return Thinking(isEnabled: try body.object("chat_template_kwargs")?.bool("enable_thinking"), effort: effort,
                        budget: reasoningBudget ?? thinkingBudget, budgetMessage: try body.string("reasoning_budget_message"))
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "'\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context): return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        case DecodingError.valueNotFound(_, let context): return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is null"
        default: return String(describing: error)
        }
    }
}
