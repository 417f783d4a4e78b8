import CLlama
import Foundation

/// Renders chat messages with llama.cpp's built-in template matching
/// (`llama_chat_apply_template`).
///
/// The template is chosen in this order: the model's embedded template, when
/// llama.cpp recognizes its style; a built-in template named after the model's
/// architecture (`gemma3` → `gemma`); ChatML.
///
/// Message contents are kept apart from template text: the template is rendered
/// with placeholders, and each content is tokenized without special-token
/// parsing, so a user cannot forge control tokens such as `<start_of_turn>`.
struct BuiltinChatTemplate: Sendable, Equatable {
    /// Where the template came from.
    enum Source: Sendable, Equatable, CustomStringConvertible {
        case embedded
        case builtin(String)
        case chatml

        var description: String {
            switch self {
            case .embedded: return "embedded"
            case .builtin(let name): return "builtin:\(name)"
            case .chatml: return "chatml"
            }
        }
    }

    /// The template text or built-in name passed to llama.cpp.
    let template: String
    /// Where it came from.
    let source: Source

    /// Picks the template for a model.
    static func resolve(model: ModelHandle, architecture: String?) -> BuiltinChatTemplate {
        if let embedded = llama_model_chat_template(model.pointer, nil).map({ String(cString: $0) }),
           (try? apply(embedded, [.user("x")], addGenerationPrompt: true)) != nil {
            return BuiltinChatTemplate(template: embedded, source: .embedded)
        }
        let builtins = builtinNames()
        if let architecture {
            let stem = String(architecture.reversed().drop(while: \.isNumber).reversed())
            for candidate in [architecture, stem] where builtins.contains(candidate) {
                return BuiltinChatTemplate(template: candidate, source: .builtin(candidate))
            }
        }
        return BuiltinChatTemplate(template: "chatml", source: .chatml)
    }

    /// Renders `messages` into segments: template text (special tokens parsed)
    /// and message contents (never parsed).
    func render(_ messages: [ChatMessage], addGenerationPrompt: Bool = true) throws -> [PromptSegment] {
        let placeholders = messages.indices.map { Self.placeholder($0) }
        let masked = zip(messages, placeholders).map { ChatMessage(role: $0.role, content: $1) }
        let rendered = try Self.apply(template, masked, addGenerationPrompt: addGenerationPrompt)
        return Self.split(rendered, contents: messages.map(\.content))
    }

    /// The prompt text exactly as the model would read it.
    func renderText(_ messages: [ChatMessage], addGenerationPrompt: Bool = true) throws -> String {
        try render(messages, addGenerationPrompt: addGenerationPrompt).map(\.text).joined()
    }

    private static let marker: Character = "\u{F8FF}"

    private static func placeholder(_ index: Int) -> String { "\(marker)\(index)\(marker)" }

    /// Splits rendered text at placeholders, putting each message's content back.
    static func split(_ rendered: String, contents: [String]) -> [PromptSegment] {
        var segments: [PromptSegment] = []
        var literal = ""
        var rest = Substring(rendered)
        while let open = rest.firstIndex(of: marker) {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: marker),
                  let index = Int(rest[afterOpen..<close]), contents.indices.contains(index) else {
                literal += rest[...open]
                rest = rest[afterOpen...]
                continue
            }
            literal += rest[..<open]
            segments.append(PromptSegment(text: literal, parsesSpecialTokens: true))
            segments.append(PromptSegment(text: contents[index], parsesSpecialTokens: false))
            literal = ""
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        segments.append(PromptSegment(text: literal, parsesSpecialTokens: true))
        return segments
    }

    private static func apply(_ template: String, _ messages: [ChatMessage], addGenerationPrompt: Bool) throws -> String {
        var cStrings: [UnsafeMutablePointer<CChar>] = []
        defer { cStrings.forEach { free($0) } }
        var chat: [llama_chat_message] = []
        for message in messages {
            let role = strdup(message.role.rawValue)!
            let content = strdup(message.content)!
            cStrings += [role, content]
            chat.append(llama_chat_message(role: role, content: content))
        }
        var capacity = max(1024, messages.reduce(0) { $0 + $1.content.utf8.count } * 2 + 512)
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = llama_chat_apply_template(template, chat, chat.count, addGenerationPrompt, &buffer, Int32(capacity))
            if length < 0 {
                throw LLMKitError.templateFailed(reason: "llama.cpp does not support this chat template")
            }
            if Int(length) <= capacity {
                return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            capacity = Int(length)
        }
    }

    private static func builtinNames() -> Set<String> {
        let count = llama_chat_builtin_templates(nil, 0)
        guard count > 0 else { return [] }
        var names = [UnsafePointer<CChar>?](repeating: nil, count: Int(count))
        _ = llama_chat_builtin_templates(&names, names.count)
        return Set(names.compactMap { $0.map { String(cString: $0) } })
    }
}
