extension ChatCompletionBody {
    /// What `RemoteModel` sends for one round: the messages without their thinking (servers
    /// regenerate it, and some refuse `reasoning_content` in requests), streamed with the usage,
    /// the options with `seed` (so that the response can say it), the format, thinking (nil
    /// leaves the server's default) and the tools offered.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a schema that cannot be read.
    init(model: String, sending messages: [ChatMessage], options: CompletionOptions, seed: UInt32, format: OutputFormat,
         thinking: Conversation.Thinking? = nil, offer: (tools: [Tool], choice: String)? = nil) throws {
        var options = options
        options.sampling.seed = seed
        let messages = messages.map { message in
            var message = message
            message.thinking = nil
            return message
        }
        self.init(model: model, messages: messages, parameters: GenerationParameters(options: options, stream: true, includeUsage: true))
        try setFormat(format)
        self.thinking = Thinking(thinking)
        if let offer, !offer.tools.isEmpty {
            tools = offer.tools
            toolChoice = offer.choice == "required" ? .required : .auto     // tools are offered: not "none"
        }
    }
}
