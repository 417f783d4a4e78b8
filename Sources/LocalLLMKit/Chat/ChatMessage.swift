/// One message of a conversation.
public struct ChatMessage: Sendable, Equatable, Codable {
    /// Who wrote a message.
    public enum Role: String, Sendable, Equatable, Codable, CaseIterable {
        /// Instructions that frame the conversation.
        case system
        /// The person talking to the model.
        case user
        /// The model.
        case assistant
        /// The output of a tool the model called.
        case tool
    }

    /// Who wrote it.
    public var role: Role
    /// What it says.
    public var content: String

    /// Creates a message.
    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }

    /// A system message.
    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: .system, content: content) }
    /// A user message.
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: .user, content: content) }
    /// An assistant message.
    public static func assistant(_ content: String) -> ChatMessage { ChatMessage(role: .assistant, content: content) }
}
