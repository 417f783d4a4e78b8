import CLlamaBridge
import Foundation

/// Owns llama.cpp's `common_chat_templates` for one model (immutable, thread-safe).
final class ChatTemplatesHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Keeps the model alive while the templates exist.
    private let model: ModelHandle

    struct Description: Decodable {
        let source: String
        let supportsThinking: Bool
        let caps: [String: Bool]
    }

    init(model: ModelHandle, source: String) throws {
        var error: llmkit_error?
        guard let pointer = llmkit_chat_templates_create(model.pointer, source, &error) else {
            throw LLMKitError.templateFailed(reason: Bridge.take(error) ?? "llama.cpp rejected the template")
        }
        self.pointer = pointer
        self.model = model
    }

    deinit {
        llmkit_chat_templates_free(pointer)
    }

    func describe() throws -> Description {
        try Bridge.json(Description.self, failure: LLMKitError.templateFailed) {
            llmkit_chat_templates_describe(pointer, $0)
        }
    }
}

/// The request sent to the bridge to render a prompt.
struct ChatRenderRequest {
    var messages: [ChatMessage]
    var addGenerationPrompt: Bool
    var enableThinking: Bool
    var useJinja: Bool
    var arguments: [String: TemplateArgument]
    /// OpenAI-style tool definitions.
    var tools: [OrderedJSON] = []
    /// `auto`, `none` or `required`.
    var toolChoice = "auto"

    func replacingMessages(_ messages: [ChatMessage]) -> ChatRenderRequest {
        var copy = self
        copy.messages = messages
        return copy
    }

    /// The request as the bridge reads it.
    func json() throws -> String {
        let encoder = JSONEncoder()
        let messages = try OrderedJSONParser.parse(String(decoding: try encoder.encode(messages), as: UTF8.self))
        // The bridge takes each template argument as JSON text.
        let kwargs = try arguments.sorted { $0.key < $1.key }.map { name, value in
            (name, OrderedJSON.string(String(decoding: try encoder.encode(value), as: UTF8.self)))
        }
        var members: [(String, OrderedJSON)] = [
            ("messages", messages),
            ("add_generation_prompt", .bool(addGenerationPrompt)),
            ("enable_thinking", .bool(enableThinking)),
            ("use_jinja", .bool(useJinja)),
            ("kwargs", .object(kwargs)),
        ]
        if !tools.isEmpty {
            members += [("tools", .array(tools)), ("tool_choice", .string(toolChoice)), ("parallel_tool_calls", .bool(true))]
        }
        return OrderedJSON.object(members).serialized()
    }
}

/// Owns one rendered prompt (`common_chat_params`) and its output parser.
final class ChatRenderHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    private let templates: ChatTemplatesHandle

    struct Description: Decodable {
        let prompt: String
        let format: String
        let generationPrompt: String
        let supportsThinking: Bool
        let thinkingStartTag: String
        let thinkingEndTags: [String]
        let additionalStops: [String]
        let preservedTokens: [String]
        let grammar: String
        let grammarLazy: Bool
    }

    init(templates: ChatTemplatesHandle, request: ChatRenderRequest) throws {
        let json: String
        do {
            json = try request.json()
        } catch {
            throw LLMKitError.templateFailed(reason: "cannot encode the messages: \(error)")
        }
        var error: llmkit_error?
        guard let pointer = llmkit_chat_render_create(templates.pointer, json, &error) else {
            throw LLMKitError.templateFailed(reason: Bridge.take(error) ?? "the template could not render the messages")
        }
        self.pointer = pointer
        self.templates = templates
    }

    deinit {
        llmkit_chat_render_free(pointer)
    }

    func describe() throws -> Description {
        try Bridge.json(Description.self, failure: LLMKitError.templateFailed) {
            llmkit_chat_render_describe(pointer, $0)
        }
    }

    /// Parses model output into answer, thinking and tool calls.
    func parse(_ text: String, isPartial: Bool) throws -> ParsedReply {
        try Bridge.json(ParsedReply.self, failure: { .outputParsingFailed(reason: $0) }) {
            llmkit_chat_render_parse(pointer, text, isPartial, $0)
        }
    }
}
