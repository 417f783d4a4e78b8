extension Conversation {
    /// How a turn may use the conversation's tools.
    ///
    /// ```swift
    /// let answer = try await conversation.respond(to: "What is 2^20?",
    ///                                             toolPolicy: .init(choice: .required, maximumRounds: 2))
    /// ```
    public struct ToolPolicy: Sendable, Equatable {
        /// Which tools the model may call in the turn's first round (later rounds are ``Conversation/ToolChoice/auto``,
        /// so that the model can answer once it has what it needed).
        public var choice: Conversation.ToolChoice
        /// The most rounds of tool calls in one turn before the turn ends with ``StopReason/toolRounds``.
        public var maximumRounds: Int

        /// Creates a policy: by default the model decides, for up to four rounds.
        public init(choice: Conversation.ToolChoice = .auto, maximumRounds: Int = 4) {
            self.choice = choice
            self.maximumRounds = maximumRounds
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
        public func validate() throws {
            if maximumRounds < 0 {
                throw LocalModel.Error.invalidOption(name: "toolPolicy.maximumRounds", reason: "\(maximumRounds) is negative")
            }
        }
    }
}
