/// One message of a conversation, in the shape of OpenAI's chat API (which is
/// also what chat templates expect).
public struct ChatMessage: Sendable, Equatable {
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

    /// A tool call an assistant message made.
    public struct ToolCall: Sendable, Equatable, Codable {
        /// The tool's name.
        public var name: String
        /// The arguments, as JSON text.
        public var arguments: String
        /// The call's id, when the model or the caller gave one.
        public var id: String?

        /// Creates a tool call record.
        public init(name: String, arguments: String, id: String? = nil) {
            self.name = name
            self.arguments = arguments
            self.id = id
        }
    }

    /// Who wrote it.
    public var role: Role
    /// What it says (for an assistant message: the final answer, without thinking).
    public var content: String
    /// An assistant message's thinking, kept apart from its answer.
    public var thinking: String?
    /// The tool calls an assistant message made.
    public var toolCalls: [ToolCall]
    /// For a tool message: the id of the call it answers.
    public var toolCallID: String?
    /// For a tool message: the tool's name.
    public var name: String?
    /// Images (or audio clips) the message carries, for a model with a projector
    /// (``LocalModel/acceptsImages``). The model sees them in order, before ``content``, as
    /// llama.cpp's multimodal tools and Ollama place them.
    public var attachments: [MediaAttachment]

    /// Creates a message.
    public init(role: Role, content: String, thinking: String? = nil, toolCalls: [ToolCall] = [],
                toolCallID: String? = nil, name: String? = nil, attachments: [MediaAttachment] = []) {
        self.role = role
        self.content = content
        self.thinking = thinking
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.name = name
        self.attachments = attachments
    }

    /// A system message.
    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: .system, content: content) }
    /// A user message.
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: .user, content: content) }
    /// A user message with images (or audio clips).
    public static func user(_ content: String, attachments: [MediaAttachment]) -> ChatMessage {
        ChatMessage(role: .user, content: content, attachments: attachments)
    }
    /// An assistant message, with its thinking when there was some.
    public static func assistant(_ content: String, thinking: String? = nil) -> ChatMessage {
        ChatMessage(role: .assistant, content: content, thinking: thinking)
    }
    /// A tool's output, answering the call with id `callID`.
    public static func tool(_ content: String, callID: String?, name: String? = nil) -> ChatMessage {
        ChatMessage(role: .tool, content: content, toolCallID: callID, name: name)
    }
}
