extension Conversation {
    /// The outcome of one turn.
    public struct Response: Sendable, Equatable {
        /// The answer, without thinking.
        public var text: String
        /// The thinking, split out by the template's parser (empty when there was none).
        public var thinking: String
        /// Everything the model generated, before parsing.
        public var rawText: String
        /// Why generation stopped.
        public var stopReason: StopReason
        /// The stop sequence that ended generation, when there was one.
        public var stopSequence: String?
        /// The sampling seed that was used.
        public var seed: UInt32
        /// Token counts (including tokens reused from the cache) and timings.
        public var statistics: GenerationStatistics
        /// Turns dropped from the transcript to make room (``OverflowPolicy/dropOldestTurns``).
        public var droppedTurns: Int
        /// The tool calls of this turn, with their outputs, in order.
        public var toolInvocations: [ToolInvocation] = []
    }
}

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
        /// The model called a tool; it is about to run.
        case toolCallStarted(ToolInvocation)
        /// A tool finished; its output (or error) is in the invocation and goes back to the model.
        /// The calls of one round run concurrently, so they finish in any order; the response's
        /// `toolInvocations` keep the order of the calls.
        case toolCallFinished(ToolInvocation)
        /// The turn is over, after any tool rounds; always the last event, exactly once.
        case done(Conversation.Response)
    }
}

extension Conversation {
    /// A stream of ``Conversation/Event``s, ending with the turn's ``Conversation/Response``.
    public typealias ResponseStream = GenerationStream<Conversation.Event, Conversation.Response>
}
