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
