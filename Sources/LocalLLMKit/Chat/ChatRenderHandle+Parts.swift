import CLlamaChatBridge
import Foundation

extension ChatRenderHandle {
    /// Parses model output like ``parse(_:isPartial:)``, with the same result, but receives the
    /// answer and the thinking as plain UTF-8 instead of JSON: encoding and decoding JSON cost
    /// more than the parse itself.
    /// - Throws: ``ChatTemplate/Error/unparsableOutput(raw:reason:)``.
    func parseParts(_ text: String, isPartial: Bool) throws -> ParsedReply {
        var parts = llmkit_chat_parts()
        var error: llmkit_error?
        guard llmkit_chat_render_parse_parts(pointer, text, isPartial, &parts, &error) else {
            throw ChatTemplate.Error.unparsableOutput(raw: text, reason: Bridge.take(error) ?? "unknown error")
        }
        defer { llmkit_chat_parts_free(&parts) }
        // Text that is not UTF-8 is replaced the way the JSON path replaces it.
        guard parts.valid_utf8 else { return try parse(text, isPartial: isPartial) }
        return ParsedReply(content: Self.text(parts.content, length: parts.content_length),
                           reasoningContent: Self.text(parts.reasoning, length: parts.reasoning_length),
                           toolCalls: try Self.toolCalls(parts.tool_calls, output: text))
    }

    /// The tool calls from their JSON array, decoded as ``parse(_:isPartial:)`` decodes them.
    private static func toolCalls(_ json: UnsafeMutablePointer<CChar>?, output: String) throws -> [ChatMessage.ToolCall] {
        guard let json, strcmp(json, "[]") != 0 else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode([ChatMessage.ToolCall].self, from: Data(bytes: json, count: strlen(json)))
        } catch {
            throw ChatTemplate.Error.unparsableOutput(raw: output, reason: "unexpected reply from the bridge: \(error)")
        }
    }

    /// The UTF-8 text of `length` bytes at `pointer`.
    private static func text(_ pointer: UnsafeMutablePointer<CChar>?, length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }
}
