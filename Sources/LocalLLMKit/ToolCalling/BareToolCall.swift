/// A tool call written without the markup its template asks for: a whole answer that is only
/// `{"name": …, "arguments": {…}}` (optionally in a ```json fence), naming one of the
/// conversation's tools. Small models trained on Hermes-style templates (Qwen2.5-Coder 0.5B,
/// for one) often drop the `<tool_call>` tags; llama.cpp's older parsers accepted this form too.
enum BareToolCall {
    /// The call `content` stands for, when it is exactly such an object and names a tool in
    /// `toolNames`; nil for anything else, so that ordinary answers stay text.
    static func parse(_ content: String, toolNames: Set<String>) -> ChatMessage.ToolCall? {
        var text = content.trimmingWhitespace()
        for fence in ["```json", "```"] where text.hasPrefix(fence) && text.hasSuffix("```") && text.count > fence.count + 3 {
            text = String(text.dropFirst(fence.count).dropLast(3)).trimmingWhitespace()
            break
        }
        guard text.first == "{", text.last == "}", text.utf8.count <= 1 << 20,
              case .object(let members)? = try? OrderedJSONParser.parse(text), members.count == 2,
              let name = members.first(where: { $0.0 == "name" }).map(\.1), case .string(let toolName) = name,
              toolNames.contains(toolName),
              let arguments = members.first(where: { $0.0 == "arguments" || $0.0 == "parameters" }).map(\.1),
              case .object = arguments
        else { return nil }
        return ChatMessage.ToolCall(name: toolName, arguments: arguments.serialized())
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}
