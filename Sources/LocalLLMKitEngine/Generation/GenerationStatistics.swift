/// Token counts and timings of one completion.
public struct GenerationStatistics: Sendable, Equatable {
    /// Tokens in the prompt.
    public var promptTokens: Int = 0
    /// Prompt tokens whose keys and values were already in the cache (a conversation's
    /// earlier turns), so they were not evaluated again.
    public var cachedPromptTokens: Int = 0
    /// Prompt tokens actually evaluated: ``promptTokens`` minus ``cachedPromptTokens``.
    public var evaluatedPromptTokens: Int { promptTokens - cachedPromptTokens }
    /// Images (or audio clips) in the prompt that the projector encoded for this request; those
    /// already in the KV cache (an earlier turn) or in the projector's cache are not encoded again.
    public var encodedMedia: Int = 0
    /// Time the projector spent encoding those media (part of ``timeToFirstToken``, not of
    /// ``promptDuration``, which counts the text model's decoding).
    public var mediaEncodingDuration: Duration = .zero
    /// Tokens generated (an end-of-generation token is not counted).
    public var generatedTokens: Int = 0
    /// Generated tokens that belong to the thinking phase (conversations only): the thinking
    /// text, without its tags, tokenized again.
    public var thinkingTokens: Int = 0
    /// Tokens drafted by speculation (``LocalModel/Configuration/Speculation``) and checked
    /// by the model; 0 without speculation.
    public var draftedTokens: Int = 0
    /// Drafted tokens that the model's own draws agreed with, so that they cost no step of
    /// their own.
    public var acceptedDraftTokens: Int = 0
    /// ``acceptedDraftTokens`` over ``draftedTokens`` (0 without drafts).
    public var draftAcceptanceRate: Double {
        draftedTokens > 0 ? Double(acceptedDraftTokens) / Double(draftedTokens) : 0
    }
    /// Time spent evaluating the prompt (the part not taken from the cache).
    public var promptDuration: Duration = .zero
    /// Time from the first sampled token to the last.
    public var generationDuration: Duration = .zero
    /// Time from the start of the request (once the model was free) to the first token.
    public var timeToFirstToken: Duration = .zero
    /// Prompt tokens evaluated per second (``evaluatedPromptTokens`` over ``promptDuration``).
    public var promptTokensPerSecond: Double = 0
    /// Tokens generated per second after the first one; each costs one decode step and one sample.
    public var generationTokensPerSecond: Double = 0
    /// Tokens drafted from the output grammar: text the grammar allowed next (a JSON Schema's
    /// keys and punctuation), decoded in one step with the token before it.
    public var grammarDraftedTokens: Int = 0
    /// Grammar-drafted tokens that the model's own draws agreed with, so that they cost no step
    /// of their own (``generatedTokens`` minus these were sampled one a step).
    public var forcedTokens: Int = 0
    /// When the request reached the model's scheduler (for where the time to the first token went).
    package var submittedAt: ContinuousClock.Instant?

    /// Creates empty statistics.
    public init() {}

    /// Adds a later generation round of the same turn: counts and times add up; the
    /// prompt size is the latest, the time to first token the first round's.
    package mutating func accumulate(_ round: GenerationStatistics, first: Bool) {
        if first {
            self = round
            return
        }
        // The rates are over all rounds: the events each rate counted, over the summed time.
        let promptEvents = promptTokensPerSecond * promptDuration.seconds + round.promptTokensPerSecond * round.promptDuration.seconds
        let generationEvents = generationTokensPerSecond * generationDuration.seconds
            + round.generationTokensPerSecond * round.generationDuration.seconds
        promptTokens = round.promptTokens
        cachedPromptTokens = round.cachedPromptTokens
        generatedTokens += round.generatedTokens
        thinkingTokens += round.thinkingTokens
        draftedTokens += round.draftedTokens
        acceptedDraftTokens += round.acceptedDraftTokens
        grammarDraftedTokens += round.grammarDraftedTokens
        forcedTokens += round.forcedTokens
        encodedMedia += round.encodedMedia
        mediaEncodingDuration += round.mediaEncodingDuration
        promptDuration += round.promptDuration
        generationDuration += round.generationDuration
        promptTokensPerSecond = promptDuration.seconds > 0 ? promptEvents / promptDuration.seconds : 0
        generationTokensPerSecond = generationDuration.seconds > 0 ? generationEvents / generationDuration.seconds : 0
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    package var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// `count` events over this duration, per second (0 when either is zero).
    package func rate(of count: Int) -> Double {
        count > 0 && seconds > 0 ? Double(count) / seconds : 0
    }
}
