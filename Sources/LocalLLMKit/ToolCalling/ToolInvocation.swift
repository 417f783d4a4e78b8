/// One tool call the model made during a turn, and what came of it.
public struct ToolInvocation: Sendable, Equatable {
    /// Where the call appeared in the model's output.
    public enum Phase: String, Sendable, Equatable, Codable {
        /// Inside the thinking block.
        case thinking
        /// In the answer.
        case answer
    }

    /// A stable id LocalLLMKit gives the call (`call-1`, `call-2`, … per conversation).
    public var id: String
    /// The id the model wrote, when its format has one.
    public var modelCallID: String?
    /// The tool's name, as the model wrote it.
    public var name: String
    /// The arguments, as JSON text.
    public var arguments: String
    /// The tool round (1 for the first batch of calls in a turn).
    public var round: Int
    /// Whether the call began during thinking or during the answer.
    public var phase: Phase
    /// The tool's output (or the error message the model was given).
    public var output: String?
    /// Whether the call failed (unknown tool, bad arguments, or the tool threw).
    public var isError: Bool
}

extension Conversation {
    /// Which tools the model may call in a turn.
    public enum ToolChoice: Sendable, Equatable {
        /// The model decides.
        case auto
        /// No tool calls.
        case none
        /// The first round must call a tool (later rounds may answer).
        case required
        /// The first round must call this tool (later rounds may answer).
        case named(String)
    }
}
