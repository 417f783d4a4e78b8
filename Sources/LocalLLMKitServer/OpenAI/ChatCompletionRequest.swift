import Foundation
import LocalLLMKit

/// A `POST /v1/chat/completions` body, read (``ChatCompletionBody``) and checked against the
/// model: the messages, the generation parameters, the tools and tool choice, the response
/// format and whether to think.
struct ChatCompletionRequest: Sendable {
    /// The model named, if any (a server of one model answers whatever it names).
    var model: String?
    var messages: [ChatMessage]
    var parameters: GenerationParameters
    var tools: [DynamicTool]
    var toolChoice: Conversation.ToolChoice
    var format: OutputFormat
    var thinking: Conversation.Thinking

    init(_ body: RequestBody, vocabularySize: Int, adapterCount: Int = 0, templateThinks: Bool) throws(APIError) {
        let wire = try ChatCompletionBody(body, vocabularySize: vocabularySize, adapterCount: adapterCount)
        model = wire.model
        messages = wire.messages
        parameters = wire.parameters
        tools = Self.tools(wire.tools)
        toolChoice = switch wire.toolChoice {
        case nil, .auto?: tools.isEmpty ? .none : .auto
        case .none?: .none
        case .required?: .required
        case .function(let name)?: .named(name)
        }
        format = wire.grammar.map(OutputFormat.grammar) ?? wire.responseFormat?.outputFormat ?? .text
        thinking = Self.thinking(wire.thinking, templateThinks: templateThinks)
    }

    /// The server offers the tools; the client runs them. A body that runs is never called.
    static func tools(_ tools: [ChatCompletionBody.Tool]) -> [DynamicTool] {
        tools.map { tool in
            DynamicTool(name: tool.name, description: tool.description, parametersSchema: tool.parameters.serialized()) { _ in "" }
        }
    }

    /// Thinking follows the template, as with llama-server, unless the request turns it off:
    /// `reasoning_effort: "none"` or `chat_template_kwargs: {"enable_thinking": false}`; a
    /// negative budget is none.
    private static func thinking(_ wire: ChatCompletionBody.Thinking, templateThinks: Bool) -> Conversation.Thinking {
        var enabled = templateThinks
        if let effort = wire.effort { enabled = templateThinks && effort != "none" }
        if let flag = wire.isEnabled { enabled = templateThinks && flag }
        guard enabled else { return .disabled }
        return .enabled(budget: wire.budget.flatMap { $0 < 0 ? nil : $0 }, budgetMessage: wire.budgetMessage)
    }
}
