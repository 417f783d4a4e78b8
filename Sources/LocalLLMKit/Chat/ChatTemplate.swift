import CLlamaChatBridge
import Foundation

/// A chat template: turns messages into the exact prompt text a model expects,
/// through llama.cpp's chat engine (its Jinja interpreter and per-model parsers).
///
/// The template is chosen in this order:
/// 1. an explicit template (``init(model:override:)``): Jinja source, or the name of
///    one of llama.cpp's built-in templates;
/// 2. the template embedded in the GGUF file;
/// 3. llama.cpp's built-in template for the model's architecture (`gemma3` → `gemma`);
/// 4. ChatML.
///
/// ```swift
/// let template = try ChatTemplate(model: model, overrideFile: url)   // url: a Jinja file, e.g. Qwen3's
/// let prompt = try template.render([.system("Be brief."), .user("Hi!")], enableThinking: true)
/// print(template.source, prompt.text)
/// ```
public struct ChatTemplate: Sendable {
    /// Where a template came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// Passed explicitly.
        case override
        /// Embedded in the GGUF file (`tokenizer.chat_template`).
        case embedded
        /// One of llama.cpp's built-in templates, by name.
        case builtin(String)
        /// The ChatML fallback.
        case chatml

        /// `override`, `embedded`, `builtin:NAME` or `chatml`.
        public var description: String {
            switch self {
            case .override: return "override"
            case .embedded: return "embedded"
            case .builtin(let name): return "builtin:\(name)"
            case .chatml: return "chatml"
            }
        }
    }

    /// Where this template came from.
    public let source: Source
    /// Whether the template reacts to `enable_thinking`.
    public let supportsThinking: Bool
    /// Whether the template can render tools and tool calls.
    public let supportsToolCalls: Bool
    /// The template's Jinja source (or built-in name).
    public let text: String
    /// Why the model's embedded template is not in use, when it could not be loaded (it does not
    /// parse, or exceeds a bound) and a built-in template or ChatML replaced it; nil otherwise.
    /// The replacement may not match the prompt format the model was trained on.
    public let embeddedTemplateError: ChatTemplate.Error?
    /// The bounds this template is parsed and rendered under.
    public var limits: Limits { handle.limits }

    let handle: ChatTemplatesHandle
    /// Built-in templates are rendered by `llama_chat_apply_template`, not by the Jinja engine.
    let usesJinja: Bool
    /// The texts of the model's control tokens, which message text must never become.
    let controlTexts: ControlTokenTexts

    /// The template for `model`, optionally overridden.
    /// - Parameters:
    ///   - model: the model whose vocabulary supplies the BOS and EOS texts.
    ///   - override: Jinja source, or a built-in template name such as `chatml`, `gemma`, `llama3`.
    ///   - limits: the bounds that parsing and rendering run under.
    /// - Throws: ``ChatTemplate/Error/failed(reason:)`` when the template cannot be parsed,
    ///   ``ChatTemplate/Error/boundExceeded(_:reason:)`` when it exceeds a bound.
    public init(model: LocalModel, override: String? = nil, limits: Limits = .standard) throws {
        try self.init(handle: model.handle, architecture: model.file.architecture, override: override, limits: limits)
    }

    /// The template for `model`, overridden by the Jinja file at `url`.
    /// - Throws: ``ChatTemplate/Error/failed(reason:)`` naming the file when it cannot be read or parsed,
    ///   ``ChatTemplate/Error/boundExceeded(_:reason:)`` naming it when it exceeds a bound.
    public init(model: LocalModel, overrideFile url: URL, limits: Limits = .standard) throws {
        let source: String
        do {
            source = try UserFile.text(at: url.path, limit: max(limits.sourceBytes, 1))
        } catch {
            throw ChatTemplate.Error.failed(reason: "cannot read \(url.path): \(error.reason)")
        }
        do {
            try self.init(model: model, override: source, limits: limits)
        } catch ChatTemplate.Error.failed(let reason) {
            throw ChatTemplate.Error.failed(reason: "\(url.path): \(reason)")
        } catch ChatTemplate.Error.boundExceeded(let bound, let reason) {
            throw ChatTemplate.Error.boundExceeded(bound, reason: "\(url.path): \(reason)")
        }
    }

    init(handle model: ModelHandle, architecture: String?, override: String?, limits: Limits = .standard) throws {
        let builtins = Self.builtinNames()
        let controlTexts = ControlTokenTexts.of(model)
        func make(_ text: String, _ source: Source, jinja: Bool, embeddedError: ChatTemplate.Error? = nil) throws -> ChatTemplate {
            try ChatTemplate(model: model, text: text, source: source, jinja: jinja, limits: limits,
                             controlTexts: controlTexts, embeddedError: embeddedError)
        }
        if let override, !override.isEmpty {
            if builtins.contains(override) && override != "chatml" {
                self = try make(override, .builtin(override), jinja: false)
            } else {
                self = try make(override, override == "chatml" ? .chatml : .override, jinja: true)
            }
            return
        }
        // An embedded template that fails is replaced, but the failure is kept on the template
        // (and `llmkit` warns about it): a silent replacement would prompt the model in a format
        // it was not trained on, and hide a template that exceeds its bounds.
        var embeddedError: ChatTemplate.Error?
        if let embedded = model.embeddedChatTemplate {
            do {
                self = try make(embedded, .embedded, jinja: true)
                return
            } catch let error as ChatTemplate.Error {
                embeddedError = error
            }
        }
        if let architecture {
            let stem = String(architecture.reversed().drop(while: \.isNumber).reversed())
            if let name = [architecture, stem].first(where: { builtins.contains($0) && $0 != "chatml" }) {
                self = try make(name, .builtin(name), jinja: false, embeddedError: embeddedError)
                return
            }
        }
        self = try make("chatml", .chatml, jinja: true, embeddedError: embeddedError)
    }

    private init(model: ModelHandle, text: String, source: Source, jinja: Bool, limits: Limits,
                 controlTexts: ControlTokenTexts, embeddedError: ChatTemplate.Error?) throws {
        let handle = try ChatTemplatesHandle(model: model, source: text, limits: limits)
        let description = try handle.describe()
        self.handle = handle
        self.text = jinja ? description.source : text
        self.source = source
        self.usesJinja = jinja
        self.supportsThinking = jinja && description.supportsThinking
        self.supportsToolCalls = jinja && (description.caps["supports_tool_calls"] ?? false)
        self.controlTexts = controlTexts
        self.embeddedTemplateError = embeddedError
    }

    /// Renders `messages` into a prompt.
    /// - Parameters:
    ///   - messages: the conversation so far.
    ///   - addGenerationPrompt: end with the marker that starts the assistant's answer.
    ///   - enableThinking: passed to the template as `enable_thinking`.
    ///   - arguments: extra template variables, such as `reasoning_effort`.
    /// - Returns: the prompt, with the message texts kept apart from the template text, so that
    ///   none of them becomes a control token.
    /// - Throws: ``ChatTemplate/Error/failed(reason:)``, ``ChatTemplate/Error/boundExceeded(_:reason:)``,
    ///   or ``ChatTemplate/Error/invalidArgument(name:reason:)`` for an argument that cannot be used.
    public func render(_ messages: [ChatMessage], addGenerationPrompt: Bool = true, enableThinking: Bool = false,
                       arguments: [String: ChatTemplate.Argument] = [:]) throws -> ChatTemplate.RenderedPrompt {
        try render(messages, addGenerationPrompt: addGenerationPrompt, enableThinking: enableThinking,
                   arguments: arguments, tools: [], toolChoice: "auto")
    }

    /// Renders with tool definitions (OpenAI style) and a tool choice (`auto`, `none`, `required`).
    func render(_ messages: [ChatMessage], addGenerationPrompt: Bool = true, enableThinking: Bool = false,
                arguments: [String: ChatTemplate.Argument] = [:], tools: [OrderedJSON], toolChoice: String) throws -> ChatTemplate.RenderedPrompt {
        if !tools.isEmpty && !supportsToolCalls {
            throw ChatTemplate.Error.toolsUnsupported(template: source.description)
        }
        try check(arguments)
        let request = ChatRenderRequest(messages: messages, addGenerationPrompt: addGenerationPrompt,
                                        enableThinking: enableThinking, useJinja: usesJinja, arguments: arguments,
                                        tools: tools, toolChoice: toolChoice)
        // The neutralized messages and their masked copy render in one run (see PromptIsolation).
        // Only the copy's text is used, so it skips the output parser's template analysis where
        // it can (see ChatRenderRequest.promptOnly).
        let isolation = PromptIsolation(messages, controlTexts: controlTexts)
        var requests = [request.replacingMessages(isolation.neutralized)]
        if let masked = isolation.masked { requests.append(request.replacingMessages(masked).forPromptOnly()) }
        let renders = try ChatRenderHandle.render(requests, with: handle)
        let render = try renders[0].get()
        let details = try render.describe()
        let maskedPrompt = renders.count > 1 ? try? renders[1].get().describe().prompt : nil
        if let isolated = isolation.isolate(details.prompt, maskedRendering: maskedPrompt) {
            return ChatTemplate.RenderedPrompt(details: details, isolated: isolated, render: render)
        }
        let strict = isolation.strict()
        let strictRender = try ChatRenderHandle.render([request.replacingMessages(strict.neutralized)], with: handle)[0].get()
        let strictDetails = try strictRender.describe()
        return ChatTemplate.RenderedPrompt(details: strictDetails, isolated: strict.splitAtSentinels(strictDetails.prompt),
                                  render: strictRender)
    }

    /// Checks template arguments: they are rendered as template text, so their text must not
    /// hold a control-token text, and they must not replace what llama.cpp sets itself.
    /// - Throws: ``ChatTemplate/Error/invalidArgument(name:reason:)``.
    func check(_ arguments: [String: ChatTemplate.Argument]) throws {
        for (name, value) in arguments.sorted(by: { $0.key < $1.key }) {
            if Conversation.Configuration.reservedTemplateArgumentNames.contains(name) {
                throw ChatTemplate.Error.invalidArgument(name: name,
                                                         reason: "llama.cpp sets \(name) itself; it cannot be overridden")
            }
            guard case .string(let text) = value else { continue }
            let bytes = Array(text.utf8)
            if let found = controlTexts.occurrences(in: bytes).first {
                throw ChatTemplate.Error.invalidArgument(name: name,
                                                         reason: "it holds the control-token text \(String(decoding: bytes[found], as: UTF8.self))")
            }
        }
    }

    /// How many template runs (parses and renders) this process has had done so far in workers
    /// of a model's helper process, and in a child forked for the run.
    package static func runCounts() -> (inWorkers: UInt64, inChildren: UInt64) {
        var workers: UInt64 = 0
        var children: UInt64 = 0
        llmkit_template_run_counts(&workers, &children)
        return (workers, children)
    }

    /// The names of llama.cpp's built-in templates.
    public static func builtinNames() -> Set<String> {
        ModelHandle.builtinChatTemplateNames()
    }
}

extension ChatTemplate {
    /// An extra value passed to a chat template (`chat_template_kwargs`).
    public enum Argument: Sendable, Equatable, Codable {
        /// A boolean.
        case bool(Bool)
        /// A number.
        case number(Double)
        /// A string.
        case string(String)

        /// Decodes a plain JSON boolean, number or string.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        /// The value as JSON.
        var json: OrderedJSON {
            switch self {
            case .bool(let value): return .bool(value)
            case .number(let value): return .number(value)
            case .string(let value): return .string(value)
            }
        }

        /// Encodes the plain value.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }
}
