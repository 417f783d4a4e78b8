extension Conversation {
    /// What to do when a new turn does not fit in the context.
    public enum OverflowPolicy: String, Sendable, Equatable, Codable {
        /// Throw ``LocalModel/Error/promptTooLong(tokens:limit:)`` before anything is evaluated.
        case fail
        /// Drop the oldest turns (never the instructions) until the new turn fits.
        case dropOldestTurns
    }

    /// Settings of a conversation, fixed at creation.
    public struct Configuration: Sendable, Equatable, Codable {
        /// A chat template that overrides the model's: Jinja source, or a built-in
        /// template name such as `chatml`. `nil` uses the model's own (see ``ChatTemplate``).
        public var chatTemplate: String?
        /// The most tokens a turn of this conversation may use on its sequence: transcript plus
        /// answer. `nil` uses the model's ``LocalModel/contextLength``, which is the one default
        /// and the upper bound.
        public var contextLength: Int?
        /// What to do when a turn does not fit.
        public var overflowPolicy: OverflowPolicy
        /// Extra template variables.
        public var templateArguments: [String: ChatTemplate.Argument]
        /// Evaluate only what follows the longest prefix already in the model's cache (the default).
        /// Off, every turn evaluates the whole history again: slower, for comparison.
        public var reusesPromptCache: Bool

        /// Creates a configuration; every argument has a default.
        public init(chatTemplate: String? = nil, contextLength: Int? = nil, overflowPolicy: OverflowPolicy = .fail,
                    templateArguments: [String: ChatTemplate.Argument] = [:],
                    reusesPromptCache: Bool = true) {
            self.chatTemplate = chatTemplate
            self.contextLength = contextLength
            self.overflowPolicy = overflowPolicy
            self.templateArguments = templateArguments
            self.reusesPromptCache = reusesPromptCache
        }

        /// Template variables that llama.cpp sets itself: an argument of that name would replace
        /// them (the messages, the tool list, the BOS and EOS texts) behind the prompt's isolation.
        public static let reservedTemplateArgumentNames: Set<String> = [
            "messages", "tools", "bos_token", "eos_token", "add_generation_prompt",
        ]

        /// Checks every value, naming the first one that cannot work. Saved conversations are
        /// checked the same way when they are restored. (A template argument's text is also
        /// checked against the model's control tokens once the template is known.)
        /// - Throws: ``Conversation/Error/invalidConfiguration(name:reason:)`` or ``ChatTemplate/Error/invalidArgument(name:reason:)``.
        public func validate() throws {
            if let contextLength, !(1...(1 << 24)).contains(contextLength) {
                throw Conversation.Error.invalidConfiguration(name: "contextLength", reason: "\(contextLength) is not between 1 and \(1 << 24)")
            }
            let sourceLimit = ChatTemplate.Limits.standard.sourceBytes
            if let chatTemplate, chatTemplate.utf8.count > sourceLimit {
                throw Conversation.Error.invalidConfiguration(name: "chatTemplate",
                                                            reason: "\(chatTemplate.utf8.count) bytes, more than \(sourceLimit)")
            }
            for (name, value) in templateArguments.sorted(by: { $0.key < $1.key }) {
                if name.isEmpty || name.utf8.count > 256 {
                    throw ChatTemplate.Error.invalidArgument(name: String(name.prefix(40)), reason: "a name must have 1 to 256 bytes")
                }
                if Self.reservedTemplateArgumentNames.contains(name) {
                    throw ChatTemplate.Error.invalidArgument(name: name,
                                                             reason: "llama.cpp sets \(name) itself; it cannot be overridden")
                }
                if case .number(let number) = value, !number.isFinite {
                    throw ChatTemplate.Error.invalidArgument(name: name, reason: "\(number) is not a finite number")
                }
                if case .string(let text) = value, text.utf8.count > 1 << 16 {
                    throw ChatTemplate.Error.invalidArgument(name: name, reason: "more than 64 KiB of text")
                }
            }
        }
    }
}
