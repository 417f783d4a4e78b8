/// Why generation stopped. Every completion reports exactly one.
public enum StopReason: String, Sendable, Equatable, Codable, CaseIterable {
    /// The model produced an end-of-generation token.
    case endOfText = "end_of_text"
    /// The maximum number of tokens was reached (or the context filled up).
    case maximumTokens = "maximum_tokens"
    /// The output reached one of the stop sequences.
    case stopSequence = "stop_sequence"
    /// The consuming task was cancelled, or it stopped reading the stream.
    case cancelled
    /// A conversation reached its maximum number of tool rounds while the model still
    /// wanted to call tools.
    case toolRounds = "tool_rounds"
    /// The model called tools that the caller runs (`Conversation.streamResponse(to:)`, which runs none):
    /// the calls are in the response's `toolInvocations`, without outputs.
    case toolCalls = "tool_calls"
}
