extension Conversation {
    /// What a turn would cost, computed with the real template and tokenizer, without
    /// evaluating anything.
    public struct Preflight: Sendable, Equatable {
        /// Tokens in the prompt the turn would evaluate (history plus the new message).
        public var promptTokens: Int
        /// Of those, tokens in the model's cache now (a later request may evict them first).
        public var cachedTokens: Int
        /// The context length.
        public var contextLength: Int
        /// Whether the prompt fits, with room for the answer (at least one token, or
        /// the options' maximum).
        public var fits: Bool
        /// The most tokens the answer can have: the options' maximum, capped by the room left.
        public var maximumResponseTokens: Int
        /// Turns the overflow policy would drop to make room.
        public var droppedTurns: Int
    }

    /// Reports, for the message `prompt`, the exact prompt size, the context size,
    /// whether it fits, and the effective maximum answer length.
    /// The arguments are those of ``respond(to:attachments:format:options:thinking:toolPolicy:)``.
    /// Images count with the positions they take.
    /// - Throws: ``ChatTemplate/Error/failed(reason:)``, ``LocalModel/Error/invalidOption(name:reason:)``,
    ///   ``LocalModel/Error/noProjector(path:)`` or ``MediaAttachment/Error``.
    public func preflight(_ prompt: String, attachments: [MediaAttachment] = [], format: OutputFormat = .text,
                          options: CompletionOptions = .init(), thinking: Thinking = .disabled,
                          toolPolicy: ToolPolicy = .init()) async throws -> Preflight {
        let request = TurnRequest(options: options, format: format, thinking: thinking, toolPolicy: toolPolicy)
        try request.validate()
        let plan = try await round.plan([.user(Self.userMessage(prompt, format: format), attachments: attachments)],
                                        after: transcript, request: request, toolChoice: Self.toolChoice(for: request, round: 0))
        let room = max(contextLength - plan.tokens.count, 0)
        let cached = configuration.reusesPromptCache ? try await model.reusablePrefix(of: plan.tokens) : 0
        return Preflight(promptTokens: plan.tokens.count, cachedTokens: cached, contextLength: contextLength,
                         fits: plan.fits, maximumResponseTokens: plan.fits ? min(options.maximumResponseTokens ?? room, room) : 0,
                         droppedTurns: plan.droppedTurns)
    }
}
