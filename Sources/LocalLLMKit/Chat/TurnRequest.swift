/// Everything one conversation turn was asked for: the request's options (the engine fills
/// sampling left nil from the model's recommendations), the output format, thinking and the
/// tool policy.
struct TurnRequest: Sendable {
    var options: CompletionOptions
    var format: OutputFormat
    var thinking: Conversation.Thinking
    var toolPolicy: Conversation.ToolPolicy

    /// Checks every part, naming the first value that cannot work.
    func validate() throws {
        try options.validate()
        try thinking.validate()
        try toolPolicy.validate()
    }
}

extension TurnRequest {
    /// The request of a reply to a chat the caller keeps: one round, whose tool calls are
    /// returned, not run.
    static func reply(options: CompletionOptions = .init(), format: OutputFormat = .text, thinking: Conversation.Thinking,
                      toolChoice: Conversation.ToolChoice) -> TurnRequest {
        TurnRequest(options: options, format: format, thinking: thinking,
                    toolPolicy: .init(choice: toolChoice, maximumRounds: 1))
    }
}
