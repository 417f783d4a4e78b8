/// One request while it holds a sequence: its own sampler (and grammar), stop rules,
/// UTF-8 decoder, statistics and output. The ``BatchScheduler`` feeds it prompt chunks and
/// sampled tokens; it decides when the request is over.
package final class ActiveGeneration {
    package let request: GenerationRequest
    package let sequence: Int32
    private let tokenizer: Tokenizer
    private let sampler: Sampler
    private let tokenLimit: Int
    /// Whether the text of a sampled token (detokenizing, stop sequences, streaming) is handled
    /// only once the step that decodes it is queued (``handleDeferredText()``), so that it runs
    /// while the device computes: where `llama_decode` returns before the work is done (a GPU).
    private let defersText: Bool
    /// With ``defersText``: the token sampled last, whose text is not handled yet.
    private var unhandledToken: Int32?
    private let clock = ContinuousClock()
    private let submitted: ContinuousClock.Instant
    private var promptStart: ContinuousClock.Instant

    /// The prompt tokens not yet decoded, from ``nextPromptIndex`` on.
    package private(set) var nextPromptIndex: Int
    /// The token sampled last, which the next step decodes; nil while the prompt is evaluated.
    package private(set) var pendingToken: Int32?
    /// How the request ended, once it has.
    package private(set) var outcome: GenerationOutcome?

    private var decoder = UTF8StreamDecoder()
    private var matcher: StopSequenceMatcher
    private var json: BalancedJSONScanner?
    private var text = ""
    private var tokens: [Int32] = []
    /// Each generated token's log-probability, when the options ask for them.
    private var logProbabilities: [TokenLogProbability] = []
    private var statistics = GenerationStatistics()
    private var firstSample: ContinuousClock.Instant?
    private var lastSample: ContinuousClock.Instant?
    private var samples = 0

    /// Validates `request` against its limits and builds its sampler; nothing is decoded yet.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``, ``LocalModel/Error/emptyPrompt``,
    ///   ``LocalModel/Error/responseLengthExceedsContext(maximumResponseTokens:contextLength:)``,
    ///   ``LocalModel/Error/promptTooLong(tokens:limit:)`` or ``LocalModel/Error/samplingFailed(reason:)``.
    package static func validate(_ request: GenerationRequest, tokenizer: Tokenizer) throws {
        let plan = request.plan
        try plan.options.validate()
        try tokenizer.validate(Array(plan.options.sampling.logitBias.keys))
        guard !plan.promptTokens.isEmpty else { throw LocalModel.Error.emptyPrompt }
        let reserved = try plan.options.reservedTokens(inContextOf: request.contextLimit)
        if plan.promptTokens.count > request.contextLimit - reserved {
            throw LocalModel.Error.promptTooLong(tokens: plan.promptTokens.count, limit: request.contextLimit - reserved)
        }
        if let last = plan.media.last, last.range.upperBound >= plan.promptTokens.count {
            throw LocalModel.Error.invalidOption(name: "attachments", reason: "the prompt ends with a medium: put text after it")
        }
    }

    /// Starts `request` on `sequence`, whose first `cachedTokens` prompt tokens are already in the cache.
    /// - Throws: ``LocalModel/Error/samplingFailed(reason:)``.
    package init(request: GenerationRequest, submitted: ContinuousClock.Instant, sequence: Int32, cachedTokens: Int,
                 model: ModelHandle, tokenizer: Tokenizer, defersText: Bool = false) throws {
        let plan = request.plan
        self.request = request
        self.sequence = sequence
        self.tokenizer = tokenizer
        self.sampler = try Sampler(model: model, sampling: plan.options.sampling, constraint: plan.constraint,
                                   thinking: plan.thinking, exhaustive: plan.samplesExhaustively)
        self.tokenLimit = min(plan.options.maximumResponseTokens ?? .max, request.contextLimit - plan.promptTokens.count)
        self.defersText = defersText
        self.submitted = submitted
        self.promptStart = clock.now
        self.nextPromptIndex = cachedTokens
        self.matcher = StopSequenceMatcher(stopSequences: plan.options.stopSequences + plan.additionalStopSequences)
        self.json = plan.options.stopsAtBalancedJSON ? BalancedJSONScanner() : nil
        statistics.promptTokens = plan.promptTokens.count
        statistics.cachedPromptTokens = cachedTokens
        statistics.submittedAt = submitted
    }

    /// The prompt's length.
    package var promptCount: Int { request.plan.promptTokens.count }

    /// Whether its prompt is still being evaluated.
    package var isEvaluatingPrompt: Bool { pendingToken == nil && outcome == nil }

    /// Whether prompt tokens are still to be decoded.
    package var hasPromptLeft: Bool { isEvaluatingPrompt && nextPromptIndex < promptCount }

    /// The tokens of its sequence in the cache once the last decode succeeded: the prompt, then
    /// every generated token but the pending one.
    package var position: Int { isEvaluatingPrompt ? nextPromptIndex : promptCount + tokens.count - 1 }

    /// The prompt tokens still to decode when they are all plain tokens (nil while a medium is
    /// ahead, which is decoded in a batch of its own).
    package var plainPromptTokensLeft: Int? {
        request.plan.media.contains { $0.range.upperBound > nextPromptIndex } ? nil : promptCount - nextPromptIndex
    }

    /// The next prompt tokens to decode, at most `budget`, up to the next medium.
    package func takePrompt(upTo budget: Int) -> ArraySlice<Int32> {
        let nextMedium = request.plan.media.first { $0.start >= nextPromptIndex }?.start ?? promptCount
        let chunk = request.plan.promptTokens[nextPromptIndex..<nextMedium].prefix(budget)
        nextPromptIndex += chunk.count
        return chunk
    }

    /// The medium the next prompt position belongs to, if it is one.
    package var mediumAtNextPrompt: PromptMediaSpan? {
        request.plan.media.first { $0.range.contains(nextPromptIndex) }
    }

    /// Marks `count` positions of the medium at the next prompt position as decoded;
    /// `encoding` is how long the projector took to encode it, when it had to.
    package func advanceThroughMedium(_ count: Int, encoding: Duration?) {
        nextPromptIndex += count
        if let encoding {
            statistics.encodedMedia += 1
            statistics.mediaEncodingDuration += encoding
        }
    }

    /// How many more tokens it may generate (its pending token counted already).
    package var remainingTokens: Int { outcome == nil ? tokenLimit - tokens.count : 0 }

    /// Counts a draft of `drafted` tokens of which `accepted` agreed with its draws (also when
    /// a token of the draft ended the request).
    package func recordDraft(drafted: Int, accepted: Int) {
        statistics.draftedTokens += drafted
        statistics.acceptedDraftTokens += accepted
        outcome?.statistics.draftedTokens = statistics.draftedTokens
        outcome?.statistics.acceptedDraftTokens = statistics.acceptedDraftTokens
    }

    /// Counts a grammar draft of `drafted` tokens of which `accepted` agreed with its draws.
    package func recordGrammarDraft(drafted: Int, accepted: Int) {
        statistics.grammarDraftedTokens += drafted
        statistics.forcedTokens += accepted
        outcome?.statistics.grammarDraftedTokens = statistics.grammarDraftedTokens
        outcome?.statistics.forcedTokens = statistics.forcedTokens
    }

    /// Whether the request drafts the text its output grammar allows next
    /// (``grammarDraft(maximum:)``): a grammar, and options that draft.
    package var draftsFromGrammar: Bool {
        request.plan.constraint.isOutputGrammar && request.plan.options.speculates
    }

    /// The tokens of the text the output grammar allows next after the pending token
    /// (``Sampler/grammarDraft(maximumCharacters:)``), at most `maximum`. The text is tokenized
    /// alone and its last token left out: it may be the start of a longer token that the model
    /// writes with what follows. The draft is a guess all the same: the scheduler draws at
    /// each of its positions, and keeps it only as far as the draws agree.
    package func grammarDraft(maximum: Int) -> [Int32] {
        guard maximum > 0, pendingToken != nil, draftsFromGrammar,
              let text = try? sampler.grammarDraft(maximumCharacters: Self.grammarDraftCharacters), !text.isEmpty,
              let tokens = try? tokenizer.tokenize(text, addSpecial: false, parseSpecial: false) else { return [] }
        return Array(tokens.dropLast().prefix(maximum))
    }

    /// The most characters of a grammar draft: more than the tokens a step drafts are seldom known.
    private static let grammarDraftCharacters = 64

    /// Undoes ``takePrompt(upTo:)`` after a decode that failed or was aborted.
    package func returnPrompt(_ count: Int) {
        nextPromptIndex -= count
    }

    /// Whether ``sample(logits:vocabularySize:)`` works (see ``Sampler/samplesFromLogits``).
    package var samplesFromLogits: Bool { sampler.samplesFromLogits }
    /// Whether the request draws the most likely token (greedy), so that its output is fixed.
    package var isGreedy: Bool { sampler.isGreedy }

    /// Whether its draws are arg-max passes (see ``Sampler/isGreedy``).
    package var samplesGreedily: Bool { sampler.isGreedy }

    /// Samples from the logits at `index` of the batch just decoded, and handles the token.
    /// - Throws: ``LocalModel/Error/samplingFailed(reason:)``.
    package func sample(at index: Int32, in context: InferenceContext) throws {
        try handle(logits: request.plan.options.logProbabilityAlternatives == nil ? nil : context.logits(at: index),
                   vocabularySize: tokenizer.vocabularySize) {
            try sampler.sampleAndAccept(from: context, index: index)
        }
    }

    /// Samples from this sequence's logits of the batch just decoded, and handles the token.
    /// Touches only this request's state: requests can do it on different threads at once.
    /// - Throws: ``LocalModel/Error/samplingFailed(reason:)``.
    package func sample(logits: UnsafePointer<Float>, vocabularySize: Int) throws {
        try handle(logits: logits, vocabularySize: vocabularySize) {
            try sampler.sampleAndAccept(logits: logits, vocabularySize: vocabularySize)
        }
    }

    /// Draws a token and handles it; with log-probabilities asked for, measures it from `logits`
    /// (not an end-of-generation token, which is not part of the output).
    private func handle(logits: UnsafePointer<Float>?, vocabularySize: Int, _ draw: () throws -> Int32) throws {
        if firstSample == nil {
            statistics.promptDuration = clock.now - promptStart
            statistics.promptTokensPerSecond = statistics.promptDuration.rate(of: statistics.evaluatedPromptTokens)
        }
        let token = try draw()
        if let alternatives = request.plan.options.logProbabilityAlternatives, let logits,
           request.plan.ignoresEndOfGeneration || !tokenizer.isEndOfGeneration(token) {
            let measured = try TokenLogProbability.measure(token: token, logits: logits, vocabularySize: vocabularySize,
                                                           alternatives: alternatives) {
                try tokenizer.piece($0, renderSpecial: false)
            }
            logProbabilities.append(measured)
            request.observeLogProbability?(measured)
        }
        let now = clock.now
        lastSample = now
        samples += 1
        if firstSample == nil {
            firstSample = now
            statistics.timeToFirstToken = now - submitted
        }
        try accept(token)
    }

    private func accept(_ token: Int32) throws {
        let plan = request.plan
        if tokenizer.isEndOfGeneration(token) && !plan.ignoresEndOfGeneration {
            return finish(.endOfText)
        }
        tokens.append(token)
        if defersText && tokens.count < tokenLimit {
            unhandledToken = token
            pendingToken = token
            return
        }
        try handleText(of: token)
    }

    /// Handles the text of the token sampled last, which the step just queued decodes (with
    /// ``defersText``). The request may end here, at a stop sequence or the end of balanced
    /// JSON: its token was decoded anyway, and stays in the sequence's cache.
    /// - Throws: ``LocalModel/Error/invalidToken(_:vocabularySize:)`` when the token has no text.
    package func handleDeferredText() throws {
        guard let token = unhandledToken, outcome == nil else { return }
        unhandledToken = nil
        try handleText(of: token)
    }

    private func piece(_ token: Int32) throws -> [UInt8] {
        try tokenizer.piece(token, renderSpecial: request.plan.preservedTokens.contains(token))
    }

    /// Streams `token`'s text and ends the request at a stop sequence, the end of balanced JSON
    /// or the token limit; otherwise the token is the next step's.
    private func handleText(of token: Int32) throws {
        let step = matcher.append(decoder.decode(try piece(token)))
        if let end = json?.scan(step.text) {
            add(String(step.text[..<end]))
            return finish(.endOfText)
        }
        add(step.text)
        if let sequence = step.stop {
            return finish(.stopSequence, sequence: sequence)
        }
        if tokens.count >= tokenLimit {
            return finish(.maximumTokens)
        }
        pendingToken = token
    }

    /// Ends the request with `reason` (cancellation included), flushing what the decoders hold back.
    package func finish(_ reason: StopReason, sequence stopSequence: String? = nil) {
        guard outcome == nil else { return }
        var reason = reason
        var stopSequence = stopSequence
        // The text of a token sampled but not handled yet (a cancellation came first) is output too.
        let unhandled = unhandledToken.flatMap { try? piece($0) }.map { decoder.decode($0) } ?? ""
        unhandledToken = nil
        if reason != .stopSequence && !(json?.isComplete ?? false) {
            let step = matcher.append(unhandled + decoder.finish())
            add(step.text)
            if let sequence = step.stop {
                (reason, stopSequence) = (.stopSequence, sequence)
            } else {
                add(matcher.finish())
            }
        }
        statistics.generatedTokens = tokens.count
        if let firstSample, let lastSample {
            statistics.generationDuration = lastSample - firstSample
            statistics.generationTokensPerSecond = statistics.generationDuration.rate(of: samples - 1)
        }
        pendingToken = nil
        outcome = GenerationOutcome(text: text, tokens: tokens, stopReason: reason, stopSequence: stopSequence,
                                    seed: sampler.seed, statistics: statistics, logProbabilities: logProbabilities)
    }

    private func add(_ chunk: String) {
        guard !chunk.isEmpty else { return }
        text += chunk
        request.emit(chunk)
    }
}

