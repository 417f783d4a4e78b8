extension Conversation {
    /// A piece of a tool call while the model writes it (``Event/toolCallDelta(_:)``): what its
    /// arguments gained since the call's previous piece. The call itself comes complete later,
    /// with ``Event/toolCallStarted(_:)`` (a turn that runs tools) or in the response's
    /// `toolInvocations` (a reply).
    public struct ToolCallDelta: Sendable, Equatable {
        /// The call's place among the calls of its round (0 for the first).
        public var index: Int
        /// The tool's name.
        public var name: String
        /// The id the model gave the call, if its format has ids.
        public var modelCallID: String?
        /// The arguments' text added by this piece (all of it so far, for the call's first piece).
        public var arguments: String
        /// Whether this is the call's first piece.
        public var isFirst: Bool

        /// A piece of call `index`.
        public init(index: Int, name: String, modelCallID: String?, arguments: String, isFirst: Bool) {
            self.index = index
            self.name = name
            self.modelCallID = modelCallID
            self.arguments = arguments
            self.isFirst = isFirst
        }
    }
}
