/// One completion from start to end: prompt evaluation, then the loop of
/// sample → detokenize → stop checks → decode.
struct CompletionRun {
    private let context: InferenceContext
    private let tokenizer: Tokenizer
    private let options: CompletionOptions
    private let promptTokens: [Int32]
    private let cancellation: CancellationFlag
    private let tokenLimit: Int
    private let reusesCache: Bool
    private let thinking: ThinkingControl?
    private let grammar: String?
    /// What the grammar cannot enforce, checked on the finished output (`uniqueItems`).
    private let outputCheck: OutputCheck?
    private let chat: ChatRenderHandle?
    private let preservedTokens: Set<Int32>
    private let clock = ContinuousClock()

    /// Validates the request; nothing is decoded yet.
    /// - Throws: ``LLMKitError/invalidOption(name:reason:)``, ``LLMKitError/emptyPrompt``,
    ///   ``LLMKitError/maximumTokensExceedContext(maximumTokens:contextLength:)``
    ///   or ``LLMKitError/promptTooLong(tokens:limit:)``.
    /// - Parameters:
    ///   - reusesCache: keep the longest prefix of the prompt already in the cache (conversations);
    ///     otherwise the cache is emptied first.
    ///   - thinking: the chat template's thinking tags and the budget, when there is one.
    ///   - chat: a rendered chat prompt whose tool-call grammar constrains sampling.
    ///   - preservedTokens: special tokens whose text must reach the output (`<tool_call>`).
    init(context: InferenceContext, tokenizer: Tokenizer, options: CompletionOptions, promptTokens: [Int32],
         cancellation: CancellationFlag, reusesCache: Bool = false, thinking: ThinkingControl? = nil,
         chat: ChatRenderHandle? = nil, preservedTokens: Set<Int32> = []) throws {
        try options.validate()
        try tokenizer.validate(Array(options.logitBias.keys))
        let constraint = try options.outputFormat.constraint(for: context.model)
        self.grammar = constraint?.grammar
        self.outputCheck = constraint?.check
        guard !promptTokens.isEmpty else { throw LLMKitError.emptyPrompt }
        let reserved = try options.reservedTokens(inContextOf: context.contextLength)
        if promptTokens.count > context.contextLength - reserved {
            throw LLMKitError.promptTooLong(tokens: promptTokens.count, limit: context.contextLength - reserved)
        }
        self.context = context
        self.tokenizer = tokenizer
        self.options = options
        self.promptTokens = promptTokens
        self.cancellation = cancellation
        self.tokenLimit = min(options.maximumTokens ?? .max, context.contextLength - promptTokens.count)
        self.reusesCache = reusesCache
        self.thinking = thinking
        self.chat = chat
        self.preservedTokens = preservedTokens
    }

    /// Generates, handing each chunk of text to `emit`, and returns the result.
    /// - Throws: ``LLMKitError/invalidOutput(raw:reason:)`` when the finished JSON breaks a
    ///   schema rule that only a check after generation enforces (`uniqueItems`).
    func execute(emit: @escaping (String) -> Void) throws -> CompletionResult {
        let start = clock.now
        context.abort(on: cancellation)
        let sampler = try Sampler(model: context.model, options: options, grammar: grammar, thinking: thinking, chat: chat)
        var statistics = GenerationStatistics()
        statistics.promptTokens = promptTokens.count
        var result = CompletionResult(text: "", tokens: [], stopReason: .cancelled, stopSequence: nil,
                                      seed: sampler.seed, statistics: statistics)
        guard !cancellation.isRaised else { return result }

        let promptStart = clock.now
        guard let reused = try context.evaluate(promptTokens, reusingCache: reusesCache) else { return result }
        result.statistics.cachedPromptTokens = reused
        result.statistics.promptDuration = clock.now - promptStart
        result.statistics.promptTokensPerSecond = result.statistics.promptDuration.rate(of: promptTokens.count - reused)

        var decoder = UTF8StreamDecoder()
        var matcher = StopSequenceMatcher(stopSequences: options.stopSequences)
        var json = options.stopsAtBalancedJSON ? BalancedJSONScanner() : nil
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
            let step = matcher.append(decoder.decode(try tokenizer.piece(token, renderSpecial: preservedTokens.contains(token))))
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
            guard try context.decode([token], startingAt: promptTokens.count + result.tokens.count - 1) else { break }
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
        if stop == .endOfText, let outputCheck { try outputCheck.verify(result.text) }
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
    let emit: (String) -> Void
    private(set) var text = ""

    init(emit: @escaping (String) -> Void) { self.emit = emit }

    mutating func add(_ chunk: String) {
        guard !chunk.isEmpty else { return }
        text += chunk
        emit(chunk)
    }
}
