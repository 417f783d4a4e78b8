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
struct ChatRenderRequest: Encodable {
    var messages: [ChatMessage]
    var addGenerationPrompt: Bool
    var enableThinking: Bool
    var useJinja: Bool
    var arguments: [String: TemplateArgument]

    func replacingMessages(_ messages: [ChatMessage]) -> ChatRenderRequest {
        var copy = self
        copy.messages = messages
        return copy
    }

    enum CodingKeys: String, CodingKey {
        case messages
        case addGenerationPrompt = "add_generation_prompt"
        case enableThinking = "enable_thinking"
        case useJinja = "use_jinja"
        case arguments = "kwargs"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(messages, forKey: .messages)
        try container.encode(addGenerationPrompt, forKey: .addGenerationPrompt)
        try container.encode(enableThinking, forKey: .enableThinking)
        try container.encode(useJinja, forKey: .useJinja)
        // The bridge takes each argument as JSON text.
        let encoder = JSONEncoder()
        let texts = try arguments.mapValues { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try container.encode(texts, forKey: .arguments)
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
    }

    init(templates: ChatTemplatesHandle, request: ChatRenderRequest) throws {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
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
