extension Conversation {
    /// Whether the model thinks before it answers, and for how long (templates that support
    /// a thinking phase only; see ``ChatTemplate/supportsThinking``).
    ///
    /// ```swift
    /// let answer = try await conversation.respond(to: "What is 17 × 23?",
    ///                                             thinking: .enabled(budget: 256))
    /// print(answer.thinking, answer.text)
    /// ```
    public struct Thinking: Sendable, Equatable {
        /// Ask the template for a thinking phase (`enable_thinking`).
        public var isEnabled: Bool
        /// The most tokens the model may think before the end-of-thinking tag is forced;
        /// `nil` means no cap, 0 closes the thinking block at once.
        public var budget: Int?
        /// Text inserted before the forced end-of-thinking tag, e.g. "Time is up, answering now."
        /// (the model reads it as its own thought).
        public var budgetMessage: String?

        /// Creates thinking settings.
        public init(isEnabled: Bool, budget: Int? = nil, budgetMessage: String? = nil) {
            self.isEnabled = isEnabled
            self.budget = budget
            self.budgetMessage = budgetMessage
        }

        /// No thinking phase (the default).
        public static let disabled = Thinking(isEnabled: false)

        /// A thinking phase of at most `budget` tokens (`nil`: no cap).
        public static func enabled(budget: Int? = nil, budgetMessage: String? = nil) -> Thinking {
            Thinking(isEnabled: true, budget: budget, budgetMessage: budgetMessage)
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
        public func validate() throws {
            if let budget, budget < 0 {
                throw LocalModel.Error.invalidOption(name: "thinking.budget", reason: "\(budget) is negative")
            }
        }
    }
}
