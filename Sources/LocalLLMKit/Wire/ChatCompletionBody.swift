import Foundation

/// The body of a `POST /chat/completions`, as both sides of the wire hold it: OpenAI's fields,
/// plus llama-server's names for what OpenAI lacks (`grammar`, `chat_template_kwargs`, a
/// thinking budget). `RemoteModel` fills one and writes it with ``json()``; `llmkit serve` reads
/// a request into one before it checks it against the model. Being one value, a field that one
/// side writes and the other does not read shows up as a difference in a round trip.
package struct ChatCompletionBody: Sendable, Equatable {
    /// The model named, if any (a server of one model answers whatever it names).
    package var model: String?
    /// The messages, sent as given (`RemoteModel` leaves out their thinking: servers regenerate
    /// it, and some refuse `reasoning_content` in requests).
    package var messages: [ChatMessage]
    package var parameters: GenerationParameters
    /// The tools offered, and `tool_choice` (nil: not sent).
    package var tools: [Tool] = []
    package var toolChoice: ToolChoice?
    /// llama-server's `grammar` (GBNF), or OpenAI's `response_format`; at most one is set.
    package var grammar: String?
    package var responseFormat: ResponseFormat?
    package var thinking = Thinking()

    /// The most messages and tools one request may carry.
    package static let maximumMessages = 4096
    package static let maximumTools = 128

    package init(model: String?, messages: [ChatMessage], parameters: GenerationParameters) {
        self.model = model
        self.messages = messages
        self.parameters = parameters
    }

    /// The request's JSON object.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` for an option no server has.
    package func json() throws -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = []
        if let model { fields.append(("model", .string(model))) }
        fields.append(("messages", .array(try messages.map(Self.encode))))
        fields += try parameters.fields()
        if !tools.isEmpty { fields.append(("tools", .array(tools.map(\.json)))) }
        if let toolChoice { fields.append(("tool_choice", toolChoice.json)) }
        if let grammar { fields.append(("grammar", .string(grammar))) }
        if let responseFormat { fields.append(("response_format", responseFormat.json)) }
        fields += thinking.fields
        return .object(fields)
    }

    private static func encode(_ message: ChatMessage) throws -> OrderedJSON {
        try OrderedJSONParser.parse(String(decoding: JSONEncoder().encode(message), as: UTF8.self))
    }

    /// Sets ``grammar`` or ``responseFormat`` for `format`.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a schema that cannot be read.
    package mutating func setFormat(_ format: OutputFormat) throws {
        (grammar, responseFormat) = (nil, nil)
        if case .grammar(let text) = format {
            grammar = text
        } else {
            responseFormat = try ResponseFormat(format)
        }
    }
}

extension ChatCompletionBody {
    /// A function the model may call: `{"type": "function", "function": {name, description, parameters}}`.
    package struct Tool: Sendable, Equatable {
        package var name: String
        package var description: String
        /// A JSON Schema object.
        package var parameters: OrderedJSON

        package init(name: String, description: String, parameters: OrderedJSON) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }

        package var json: OrderedJSON {
            .object([
                ("type", .string("function")),
                ("function", .object([("name", .string(name)), ("description", .string(description)), ("parameters", parameters)])),
            ])
        }
    }

    /// `tool_choice`: `none`, `auto`, `required`, or one function by name.
    package enum ToolChoice: Sendable, Equatable {
        case none, auto, required
        case function(String)

        package var json: OrderedJSON {
            switch self {
            case .none: .string("none")
            case .auto: .string("auto")
            case .required: .string("required")
            case .function(let name): .object([("type", .string("function")), ("function", .object([("name", .string(name))]))])
            }
        }
    }

    /// `chat_template_kwargs.enable_thinking` (as llama-server and vLLM read it), OpenAI's
    /// `reasoning_effort`, and llama-server's `thinking_budget_tokens` and
    /// `reasoning_budget_message`; nil fields are not sent.
    package struct Thinking: Sendable, Equatable {
        package var isEnabled: Bool?
        package var effort: String?
        /// Tokens of thinking at most; -1 or nil: no bound.
        package var budget: Int?
        package var budgetMessage: String?

        package init(isEnabled: Bool? = nil, effort: String? = nil, budget: Int? = nil, budgetMessage: String? = nil) {
            (self.isEnabled, self.effort, self.budget, self.budgetMessage) = (isEnabled, effort, budget, budgetMessage)
        }

        /// What a conversation asks for: nothing for nil (the server's default), on or off, and
        /// a budget only when on.
        package init(_ thinking: Conversation.Thinking?) {
            guard let thinking else { return }
            isEnabled = thinking.isEnabled
            if thinking.isEnabled, let budget = thinking.budget {
                self.budget = budget
                budgetMessage = thinking.budgetMessage
            }
        }

        var fields: [(String, OrderedJSON)] {
            var fields: [(String, OrderedJSON)] = []
            if let effort { fields.append(("reasoning_effort", .string(effort))) }
            if let isEnabled { fields.append(("chat_template_kwargs", .object([("enable_thinking", .bool(isEnabled))]))) }
            if let budget { fields.append(("thinking_budget_tokens", .integer(budget))) }
            if let budgetMessage { fields.append(("reasoning_budget_message", .string(budgetMessage))) }
            return fields
        }
    }
}
