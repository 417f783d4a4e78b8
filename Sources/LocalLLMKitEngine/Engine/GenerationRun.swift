/// One generation from start to end: prompt evaluation, then the loop of
/// sample → detokenize → stop checks → decode. It carries out a ``GenerationPlan``.
package struct GenerationRun {
    private let context: InferenceContext
    private let tokenizer: Tokenizer
    private let plan: GenerationPlan
    private let stopSequences: [String]
    private let cancellation: CancellationFlag
    private let tokenLimit: Int
    private let clock = ContinuousClock()

    /// Validates the plan; nothing is decoded yet.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``, ``LocalModel/Error/emptyPrompt``,
    ///   ``LocalModel/Error/responseLengthExceedsContext(maximumResponseTokens:contextLength:)``
    ///   or ``LocalModel/Error/promptTooLong(tokens:limit:)``.
    package init(context: InferenceContext, tokenizer: Tokenizer, plan: GenerationPlan,
                 cancellation: CancellationFlag) throws {
        try plan.options.validate()
        try tokenizer.validate(Array(plan.options.sampling.logitBias.keys))
        guard !plan.promptTokens.isEmpty else { throw LocalModel.Error.emptyPrompt }
        let reserved = try plan.options.reservedTokens(inContextOf: context.contextLength)
        if plan.promptTokens.count > context.contextLength - reserved {
            throw LocalModel.Error.promptTooLong(tokens: plan.promptTokens.count, limit: context.contextLength - reserved)
        }
        self.context = context
        self.tokenizer = tokenizer
        self.plan = plan
        self.stopSequences = plan.options.stopSequences + plan.additionalStopSequences
        self.cancellation = cancellation
        self.tokenLimit = min(plan.options.maximumResponseTokens ?? .max, context.contextLength - plan.promptTokens.count)
    }

    /// Generates, handing each chunk of text to `emit`, and returns the result.
    /// - Throws: ``LocalModel/Error/decodeFailed(code:reason:)`` or ``LocalModel/Error/samplingFailed(reason:)``.
    package func execute(emit: @escaping (String) -> Void) throws -> GenerationOutcome {
        let start = clock.now
        context.abort(on: cancellation)
        let sampler = try Sampler(model: context.model, sampling: plan.options.sampling, constraint: plan.constraint,
                                  thinking: plan.thinking)
        var statistics = GenerationStatistics()
        statistics.promptTokens = plan.promptTokens.count
        var result = GenerationOutcome(text: "", tokens: [], stopReason: .cancelled, stopSequence: nil,
                                      seed: sampler.seed, statistics: statistics)
        guard !cancellation.isRaised else { return result }

        let promptStart = clock.now
        guard let reused = try context.evaluate(plan.promptTokens, reusingCache: plan.reusesCache) else { return result }
        result.statistics.cachedPromptTokens = reused
        result.statistics.promptDuration = clock.now - promptStart
        result.statistics.promptTokensPerSecond = result.statistics.promptDuration.rate(of: plan.promptTokens.count - reused)

        var decoder = UTF8StreamDecoder()
        var matcher = StopSequenceMatcher(stopSequences: stopSequences)
        var json = plan.options.stopsAtBalancedJSON ? BalancedJSONScanner() : nil
        var output = TextAccumulator(emit: emit)
        var firstSample: ContinuousClock.Instant?
        var samples = 0
        var lastSample = start
        var stop: StopReason = .cancelled

        generation: while !cancellation.isRaised {
            let token = try sampler.sampleAndAccept(from: context)
            lastSample = clock.now
            samples += 1
            if firstSample == nil {
                firstSample = lastSample
                result.statistics.timeToFirstToken = lastSample - start
            }
            if tokenizer.isEndOfGeneration(token) {
                stop = .endOfText
                break
            }
            result.tokens.append(token)
            let step = matcher.append(decoder.decode(try tokenizer.piece(token, renderSpecial: plan.preservedTokens.contains(token))))
            if let end = json?.scan(step.text) {
                output.add(String(step.text[..<end]))
                stop = .endOfText
                break generation
            }
            output.add(step.text)
            if let sequence = step.stop {
                (stop, result.stopSequence) = (.stopSequence, sequence)
                break generation
            }
            if result.tokens.count >= tokenLimit {
                stop = .maximumTokens
                break
            }
            guard try context.decode([token], startingAt: plan.promptTokens.count + result.tokens.count - 1) else { break }
        }

        if stop != .stopSequence && !(json?.isComplete ?? false) {
            let step = matcher.append(decoder.finish())
            output.add(step.text)
            if let sequence = step.stop {
                (stop, result.stopSequence) = (.stopSequence, sequence)
            } else {
                output.add(matcher.finish())
            }
        }
        result.text = output.text
        result.stopReason = stop
        result.statistics.generatedTokens = result.tokens.count
        if let firstSample {
            result.statistics.generationDuration = lastSample - firstSample
            result.statistics.generationTokensPerSecond = result.statistics.generationDuration.rate(of: samples - 1)
        }
        return result
    }
}

/// Collects the emitted text and forwards non-empty chunks.
private struct TextAccumulator {
    package let emit: (String) -> Void
    private(set) var text = ""

    package init(emit: @escaping (String) -> Void) { self.emit = emit }

    package mutating func add(_ chunk: String) {
        guard !chunk.isEmpty else { return }
        text += chunk
        emit(chunk)
    }
}
