import Foundation
import LocalLLMKit

/// A `POST /v1/chat/completions` body, checked: the messages, the generation parameters, the
/// tools and tool choice, the response format and whether to think.
struct ChatCompletionRequest: Sendable {
    /// The model named, if any (a server of one model answers whatever it names).
    var model: String?
    var messages: [ChatMessage]
    var parameters: GenerationParameters
    var tools: [DynamicTool]
    var toolChoice: Conversation.ToolChoice
    var format: OutputFormat
    var thinking: Conversation.Thinking

    /// The most messages and tools one request may carry.
    static let maximumMessages = 4096
    static let maximumTools = 128

    init(_ body: RequestBody, vocabularySize: Int, adapterCount: Int = 0, templateThinks: Bool) throws(APIError) {
        model = try body.string("model")
        messages = try Self.messages(body)
        parameters = try GenerationParameters(body, vocabularySize: vocabularySize, adapterCount: adapterCount)
        tools = try Self.tools(body)
        toolChoice = try Self.toolChoice(body, tools: tools)
        format = try Self.format(body)
        thinking = try Self.thinking(body, templateThinks: templateThinks)
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

    static func tools(_ body: RequestBody) throws(APIError) -> [DynamicTool] {
        guard let value = body["tools"] else { return [] }
        guard case .array(let items) = value else { throw .invalid("'tools' must be an array.", param: "tools") }
        guard items.count <= maximumTools else { throw .invalid("'tools' holds more than \(maximumTools) tools.", param: "tools") }
        var tools: [DynamicTool] = []
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
            // The server offers the tools; the client runs them. A body that runs is never called.
            tools.append(DynamicTool(name: name, description: try function.string("description") ?? "",
                                     parametersSchema: parameters.serialized()) { _ in "" })
        }
        return tools
    }

    private static func toolChoice(_ body: RequestBody, tools: [DynamicTool]) throws(APIError) -> Conversation.ToolChoice {
        switch body["tool_choice"] {
        case nil: return tools.isEmpty ? .none : .auto
        case .string("none")?: return .none
        case .string("auto")?: return tools.isEmpty ? .none : .auto
        case .string("required")?: return .required
        case .object(let fields)?:
            let choice = RequestBody(fields: fields)
            guard try choice.string("type") == "function", let name = try choice.object("function")?.requiredString("name") else {
                throw .invalid("'tool_choice' must be none, auto, required or {\"type\": \"function\", \"function\": {\"name\": ...}}.",
                               param: "tool_choice")
            }
            return .named(name)
        default:
            throw .invalid("'tool_choice' must be none, auto, required or a function.", param: "tool_choice")
        }
    }

    private static func format(_ body: RequestBody) throws(APIError) -> OutputFormat {
        if let grammar = try body.grammar() {
            guard body["response_format"] == nil else {
                throw .invalid("'grammar' and 'response_format' cannot be used together.", param: "grammar")
            }
            return .grammar(grammar)
        }
        guard let format = try body.object("response_format") else { return .text }
        switch try format.requiredString("type") {
        case "text": return .text
        case "json_object": return .jsonSchema(#"{"type":"object"}"#)
        case "json_schema":
            guard let spec = try format.object("json_schema") else {
                throw .invalid("'response_format.json_schema' is required for type json_schema.", param: "response_format")
            }
            guard let schema = spec["schema"] else { return .jsonSchema(#"{"type":"object"}"#) }
            switch schema {
            case .object, .bool: return .jsonSchema(schema.serialized())
            default: throw .invalid("'response_format.json_schema.schema' must be a JSON Schema object.", param: "response_format")
            }
        case let other:
            throw .invalid("'response_format.type' is \(other); it must be text, json_object or json_schema.", param: "response_format")
        }
    }

    /// Thinking follows the template, as with llama-server, unless the request turns it off:
    /// `reasoning_effort: "none"` or `chat_template_kwargs: {"enable_thinking": false}`. Its
    /// budget is llama-server's `thinking_budget_tokens` (or `reasoning_budget_tokens`; -1: none),
    /// with `reasoning_budget_message`, as `RemoteModel` sends them.
    private static func thinking(_ body: RequestBody, templateThinks: Bool) throws(APIError) -> Conversation.Thinking {
        var enabled = templateThinks
        if let effort = try body.string("reasoning_effort") {
            guard ["none", "minimal", "low", "medium", "high"].contains(effort) else {
                throw .invalid("'reasoning_effort' must be none, minimal, low, medium or high.", param: "reasoning_effort")
            }
            enabled = templateThinks && effort != "none"
        }
        if let flag = try body.object("chat_template_kwargs")?.bool("enable_thinking") {
            enabled = templateThinks && flag
        }
        guard enabled else { return .disabled }
        let reasoningBudget = try body.integer("reasoning_budget_tokens", in: -1...(1 << 24))
        let thinkingBudget = try body.integer("thinking_budget_tokens", in: -1...(1 << 24))
        let budget = reasoningBudget ?? thinkingBudget
        let message = try body.string("reasoning_budget_message")
        return .enabled(budget: budget.flatMap { $0 < 0 ? nil : $0 }, budgetMessage: message)
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
