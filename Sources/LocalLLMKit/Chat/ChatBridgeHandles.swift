import CLlamaChatBridge
import Foundation

/// Owns the bridge's templates for one model (immutable, thread-safe). llama.cpp parses and
/// renders them only in other processes, under ``limits``: workers of the model's helper
/// process (``ModelHandle/helper``), else a child forked for each run.
final class ChatTemplatesHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Keeps the model alive while the templates exist: the bridge borrows it.
    private let model: ModelHandle
    let limits: ChatTemplate.Limits

    struct Description: Decodable {
        let source: String
        let supportsThinking: Bool
        let caps: [String: Bool]
    }

    /// - Throws: ``ChatTemplate/Error/failed(reason:)``, or ``ChatTemplate/Error/boundExceeded(_:reason:)``.
    init(model: ModelHandle, source: String, limits: ChatTemplate.Limits) throws {
        try limits.validate()
        var error: llmkit_error?
        var bound: Int32 = 0
        var bridged = limits.bridged
        guard let pointer = llmkit_chat_templates_create(model.pointer, model.helper, source, &bridged, &bound, &error) else {
            throw Bridge.templateError(Bridge.take(error), bound: bound)
        }
        self.pointer = pointer
        self.model = model
        self.limits = limits
    }

    deinit {
        llmkit_chat_templates_free(pointer)
    }

    func describe() throws -> Description {
        try Bridge.json(Description.self, failure: ChatTemplate.Error.failed) {
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
    var arguments: [String: ChatTemplate.Argument]
    /// OpenAI-style tool definitions.
    var tools: [OrderedJSON] = []
    /// `auto`, `none` or `required`.
    var toolChoice = "auto"
    /// Only the prompt text is wanted. In a worker of the model's helper, a template without a
    /// handler of its own in llama.cpp then renders once, without the analysis that works out
    /// its output parser (which renders it many times); the prompt is the same. The render's
    /// parser then only takes plain text.
    var promptOnly = false

    func replacingMessages(_ messages: [ChatMessage]) -> ChatRenderRequest {
        var copy = self
        copy.messages = messages
        return copy
    }

    /// This request for its prompt text only (see ``promptOnly``).
    func forPromptOnly() -> ChatRenderRequest {
        var copy = self
        copy.promptOnly = true
        return copy
    }

    /// The request as the bridge reads it.
    func json() throws -> String {
        let encoder = JSONEncoder()
        let messages = try OrderedJSONParser.parse(String(decoding: try encoder.encode(messages), as: UTF8.self))
        // The bridge takes each template argument as JSON text.
        let kwargs = arguments.sorted { $0.key < $1.key }.map { name, value in
            (name, OrderedJSON.string(value.json.serialized()))
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
        if promptOnly { members.append(("prompt_only", .bool(true))) }
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
        let grammarTriggers: [Trigger]

        /// What starts a lazy tool-call grammar (`kind` is an `LLMKIT_TRIGGER_*` value).
        struct Trigger: Decodable {
            let kind: Int32
            let value: String
        }
    }

    private init(pointer: OpaquePointer, templates: ChatTemplatesHandle) {
        self.pointer = pointer
        self.templates = templates
    }

    /// Renders several requests in one contained run of the template engine.
    /// - Returns: one render per request, in order; nil for a request the template rejected.
    /// - Throws: ``ChatTemplate/Error/boundExceeded(_:reason:)`` when the run exceeds a bound
    ///   (then nothing is rendered), ``ChatTemplate/Error/failed(reason:)`` when it cannot run.
    static func render(_ requests: [ChatRenderRequest],
                       with templates: ChatTemplatesHandle) throws -> [Result<ChatRenderHandle, ChatTemplate.Error>] {
        let json: String
        do {
            json = OrderedJSON.array(try requests.map { try OrderedJSONParser.parse($0.json()) }).serialized()
        } catch {
            throw ChatTemplate.Error.failed(reason: "cannot encode the messages: \(error)")
        }
        var pointers = [OpaquePointer?](repeating: nil, count: requests.count)
        var errors = [llmkit_error?](repeating: nil, count: requests.count)
        var error: llmkit_error?
        var bound: Int32 = 0
        let succeeded = pointers.withUnsafeMutableBufferPointer { renders in
            errors.withUnsafeMutableBufferPointer { messages in
                llmkit_chat_renders_create(templates.pointer, json, renders.baseAddress, messages.baseAddress,
                                           Int32(requests.count), &bound, &error)
            }
        }
        guard succeeded else {
            throw Bridge.templateError(Bridge.take(error), bound: bound)
        }
        return zip(pointers, errors).map { pointer, message in
            let reason = Bridge.take(message)
            guard let pointer else {
                return .failure(.failed(reason: reason.map(TemplateErrorText.oneLine)
                                                    ?? "the template could not render the messages"))
            }
            return .success(ChatRenderHandle(pointer: pointer, templates: templates))
        }
    }

    deinit {
        llmkit_chat_render_free(pointer)
    }

    func describe() throws -> Description {
        try Bridge.json(Description.self, failure: ChatTemplate.Error.failed) {
            llmkit_chat_render_describe(pointer, $0)
        }
    }

    /// Parses model output into answer, thinking and tool calls.
    func parse(_ text: String, isPartial: Bool) throws -> ParsedReply {
        try Bridge.json(ParsedReply.self, failure: { ChatTemplate.Error.unparsableOutput(raw: text, reason: $0) }) {
            llmkit_chat_render_parse(pointer, text, isPartial, $0)
        }
    }
}
