extension Conversation {
    /// One event of a streamed conversation turn.
    public enum Event: Sendable, Equatable {
        /// More thinking.
        case thinking(String)
        /// More answer text.
        case text(String)
        /// A later parse changed text already streamed: these are the whole answer and
        /// thinking so far, replacing everything streamed before.
        case snapshot(text: String, thinking: String)
        /// The model is writing a tool call: a piece of its arguments, as the output parser reads
        /// them (only from templates whose parser reads calls before they end).
        case toolCallDelta(ToolCallDelta)
        /// The model called a tool; it is about to run.
        case toolCallStarted(ToolInvocation)
        /// A tool finished; its output (or error) is in the invocation and goes back to the model.
        /// The calls of one round run concurrently, so they finish in any order; the response's
        /// `toolInvocations` keep the order of the calls.
        case toolCallFinished(ToolInvocation)
        /// A sampled token's log-probability and its likeliest alternatives, as it is sampled
        /// (only with ``CompletionOptions/logProbabilityAlternatives``): the token's text follows
        /// in a later event, or in none (a token of a tool call's markup, or one a stop sequence
        /// holds). The response's `logProbabilities` list them all, in this order.
        case logProbability(TokenLogProbability)
        /// The turn is over, after any tool rounds; always the last event, exactly once.
        case done(ModelResponse<String>)
    }
}

extension Conversation {
    /// A stream of ``Conversation/Event``s, ending with the turn's ``ModelResponse``.
    public typealias ResponseStream = GenerationStream<Conversation.Event, ModelResponse<String>>
}
