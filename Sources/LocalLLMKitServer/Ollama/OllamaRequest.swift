import Foundation
import LocalLLMKit

/// The parts of Ollama's `/api/chat` and `/api/generate` bodies, checked, as the library's
/// values: `options` (Ollama's names, read through ``SamplingWireField/all``), `format`
/// (`"json"` or a JSON Schema), `think`, `images`, `messages` and `tools`.
enum OllamaRequest {
    /// Ollama's option names that differ from the wire table's.
    static let renamed = ["num_predict": "max_tokens"]
    /// Options of Ollama's runtime that this server sets at load time instead, ignored as
    /// Ollama ignores what a loaded model cannot change.
    static let ignored: Set<String> = ["num_ctx", "num_batch", "num_gpu", "main_gpu", "num_thread", "num_keep", "numa",
                                       "use_mmap", "use_mlock", "low_vram", "f16_kv", "vocab_only", "penalize_newline",
                                       "logits_all", "embedding_only"]

    /// `options` as completion options; an option out of range is a 400 naming it (`options.top_k`).
    static func options(_ body: RequestBody, vocabularySize: Int) throws(APIError) -> CompletionOptions {
        guard let options = try body.object("options") else { return CompletionOptions() }
        var fields: [(String, OrderedJSON)] = []
        for (name, value) in options.fields {
            if ignored.contains(name) { continue }
            // -1 (as long as it takes) and -2 (until the context is full) are Ollama's "no limit".
            if name == "num_predict", case .integer(let count) = value, count < 0 { continue }
            fields.append((renamed[name] ?? name, value))
        }
        do throws(APIError) {
            var parameters = try GenerationParameters(RequestBody(fields: fields), vocabularySize: vocabularySize)
            parameters.options.logProbabilityAlternatives = nil
            return parameters.options
        } catch {
            let wire = error.param ?? ""
            let ollama = renamed.first { $0.value == wire }?.key ?? wire
            throw .invalid(error.message.replacingOccurrences(of: "'\(wire)'", with: "'options.\(ollama)'"), param: "options.\(ollama)")
        }
    }

    /// `format`: `"json"` (any JSON object) or a JSON Schema.
    static func format(_ body: RequestBody) throws(APIError) -> OutputFormat {
        switch body["format"] {
        case nil, .string("")?: return .text
        case .string("json")?: return .jsonSchema(#"{"type":"object"}"#)
        case .object(let fields)?: return .jsonSchema(OrderedJSON.object(fields).serialized())
        default: throw .invalid("'format' must be \"json\" or a JSON Schema object.", param: "format")
        }
    }

    /// `think`: true or false; absent, the template decides (on where it thinks).
    static func thinking(_ body: RequestBody, templateThinks: Bool) throws(APIError) -> Conversation.Thinking {
        let think: Bool?
        switch body["think"] {
        case nil: think = nil
        case .bool(let flag)?: think = flag
        case .string(let level)? where ["low", "medium", "high"].contains(level): think = true
        default: throw .invalid("'think' must be true, false, or low, medium or high.", param: "think")
        }
        return templateThinks && (think ?? true) ? .enabled() : .disabled
    }

    /// `images`: base64 images (no data-URL prefix), at most the attachment limits allow.
    static func images(_ value: OrderedJSON?, param: String) throws(APIError) -> [MediaAttachment] {
        guard let value else { return [] }
        guard case .array(let items) = value, items.count <= MediaAttachment.Limits.default.count else {
            throw .invalid("'\(param)' must be an array of at most \(MediaAttachment.Limits.default.count) base64 images.", param: param)
        }
        var images: [MediaAttachment] = []
        for item in items {
            guard case .string(let encoded) = item, encoded.utf8.count <= (MediaAttachment.Limits.default.bytes / 3 + 1) * 4,
                  let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
                throw .invalid("'\(param)' holds something that is not base64 of an image of at most "
                               + "\(MediaAttachment.Limits.default.bytes) bytes.", param: param)
            }
            images.append(.image(data))
        }
        return images
    }

    /// `/api/chat`'s `messages`: `role`, `content`, `images`, `thinking`, `tool_calls` (arguments
    /// as objects) and, for `tool` messages, `tool_name`.
    static func messages(_ body: RequestBody) throws(APIError) -> [ChatMessage] {
        guard case .array(let items)? = body["messages"] else {
            throw .invalid("'messages' is required and must be an array.", param: "messages")
        }
        guard items.count <= ChatCompletionBody.maximumMessages else {
            throw .invalid("'messages' holds more than \(ChatCompletionBody.maximumMessages) messages.", param: "messages")
        }
        var messages: [ChatMessage] = []
        for (index, item) in items.enumerated() {
            let param = "messages[\(index)]"
            guard case .object(let fields) = item else { throw .invalid("\(param) must be an object.", param: param) }
            let message = RequestBody(fields: fields)
            let content = try message.string("content") ?? ""
            let images = try images(message["images"], param: "\(param).images")
            switch try message.string("role") {
            case "system": messages.append(.system(content))
            case "user": messages.append(ChatMessage(role: .user, content: content, attachments: images))
            case "assistant":
                var calls: [ChatMessage.ToolCall] = []
                if case .array(let entries)? = message["tool_calls"] {
                    for entry in entries {
                        guard case .object(let callFields) = entry, let function = try RequestBody(fields: callFields).object("function") else {
                            throw .invalid("\(param).tool_calls must hold {\"function\": {\"name\", \"arguments\"}}.", param: param)
                        }
                        let arguments = function["arguments"] ?? .object([])
                        calls.append(.init(name: try function.requiredString("name"), arguments: arguments.serialized(),
                                           id: try RequestBody(fields: callFields).string("id")))
                    }
                }
                messages.append(ChatMessage(role: .assistant, content: content, thinking: try message.string("thinking"), toolCalls: calls))
            case "tool": messages.append(.tool(content, callID: try message.string("tool_call_id"), name: try message.string("tool_name")))
            default: throw .invalid("\(param).role must be system, user, assistant or tool.", param: param)
            }
        }
        guard !messages.isEmpty else { throw .invalid("'messages' must hold at least one message.", param: "messages") }
        return messages
    }
}
