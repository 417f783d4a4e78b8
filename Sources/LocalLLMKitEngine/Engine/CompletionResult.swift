/// The outcome of one completion: the text, why it stopped, and statistics.
public struct CompletionResult: Sendable, Equatable {
    /// The generated text (never containing a stop sequence).
    public var text: String
    /// The generated token ids, in order.
    public var tokens: [LocalModel.Token]
    /// Why generation stopped.
    public var stopReason: StopReason
    /// The stop sequence that ended generation, when ``stopReason`` is ``StopReason/stopSequence``.
    public var stopSequence: String?
    /// The sampling seed that was used.
    public var seed: UInt32
    /// Token counts and timings.
    public var statistics: GenerationStatistics
}
