/// Model output split by the template's parser.
struct ParsedReply: Decodable, Equatable, Sendable {
    /// The answer.
    var content: String
    /// The thinking.
    var reasoningContent: String
    /// Tool calls found in the output.
    var toolCalls: [ChatMessage.ToolCall]

    static let empty = ParsedReply(content: "", reasoningContent: "", toolCalls: [])
}
