/// What one generation produced: the text, the tokens, why it stopped, and statistics.
/// The layers above turn it into a ``ModelResponse``.
package struct GenerationOutcome: Sendable, Equatable {
    /// The generated text (never containing a stop sequence).
    package var text: String
    /// The generated token ids, in order.
    package var tokens: [Int32]
    /// Why generation stopped.
    package var stopReason: StopReason
    /// The stop sequence that ended generation, when ``stopReason`` is ``StopReason/stopSequence``.
    package var stopSequence: String?
    /// The sampling seed that was used.
    package var seed: UInt32
    /// Token counts and timings.
    package var statistics: GenerationStatistics
    /// Each generated token's log-probability, when ``CompletionOptions/logProbabilityAlternatives`` asked for them.
    package var logProbabilities: [TokenLogProbability] = []
}
