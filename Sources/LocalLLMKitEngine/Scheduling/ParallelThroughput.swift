import CLlama

extension LocalModel {
    /// One measurement of ``LocalModel/measureParallelThroughput(promptTokens:generatedTokens:sequences:)``,
    /// in llama-batched-bench's terms.
    package struct ParallelThroughput: Sendable, Equatable {
        /// Prompt tokens per sequence (`pp`).
        package var promptTokens: Int
        /// Tokens generated per sequence after the first (`tg`): each costs one decode step.
        package var generatedTokens: Int
        /// Sequences generating at once (`pl`, B).
        package var sequences: Int
        /// Seconds from submitting the requests until every prompt was evaluated and its first
        /// token sampled (`t_pp`).
        package var promptSeconds: Double
        /// Seconds for the generation steps after that (`t_tg`).
        package var generationSeconds: Double
        /// Where the time of the generation steps went, when asked for.
        package var stepTimes: StepTimes?
        /// Where the time of the steps with prompt tokens went, when asked for.
        package var promptStepTimes: StepTimes?

        /// The KV cells in use at the end (`n_kv`).
        package var cacheCells: Int { sequences * (promptTokens + generatedTokens) }
        /// Prompt tokens per second, over all sequences (`speed_pp`).
        package var promptTokensPerSecond: Double { Double(sequences * promptTokens) / promptSeconds }
        /// Generated tokens per second, over all sequences (`speed_tg`).
        package var generationTokensPerSecond: Double { Double(sequences * generatedTokens) / generationSeconds }
        /// All tokens over all time (`speed`).
        package var tokensPerSecond: Double { Double(cacheCells) / (promptSeconds + generationSeconds) }
    }

    /// Measures what llama-batched-bench measures, through the batch scheduler that serves real
    /// requests: `sequences` requests of `promptTokens` random tokens each are submitted at once,
    /// with greedy sampling, and each generates `generatedTokens + 1` tokens (the first comes from
    /// the prompt's logits), past end-of-generation tokens. The cache is emptied first, as
    /// llama-batched-bench empties it before each test: nothing is reused, and the sequences take
    /// the same cells.
    /// With `measuringSteps`, the result also says where the steps' time went (``StepTimes``).
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when the model has fewer
    ///   sequences or too short a context, ``LocalModel/Error/busy(queuedRequests:)`` while other
    ///   requests run on the model, or the error that stopped a request.
    package func measureParallelThroughput(promptTokens: Int, generatedTokens: Int, sequences: Int,
                                           measuringSteps: Bool = false) async throws -> ParallelThroughput {
        let plans = try benchmarkPlans(promptTokens: promptTokens, generatedTokens: generatedTokens, sequences: sequences)
        let scheduler = try emptiedScheduler()
        if measuringSteps { scheduler.measureSteps() }
        let outcomes: [GenerationOutcome]
        do {
            outcomes = try await generateTogether(plans)
        } catch {
            _ = scheduler.stopMeasuringSteps()
            throw error
        }
        let stepTimes = measuringSteps ? scheduler.stopMeasuringSteps() : nil
        let firstTokens = outcomes.map(\.statistics.timeToFirstToken.seconds).max() ?? 0
        let ends = outcomes.map { $0.statistics.timeToFirstToken.seconds + $0.statistics.generationDuration.seconds }.max() ?? 0
        return ParallelThroughput(promptTokens: promptTokens, generatedTokens: generatedTokens, sequences: sequences,
                                  promptSeconds: firstTokens, generationSeconds: ends - firstTokens,
                                  stepTimes: stepTimes?.generation, promptStepTimes: stepTimes?.prompt)
    }

    /// `sequences` greedy requests of `promptTokens` random tokens each (the same on every call),
    /// each generating `generatedTokens + 1` tokens past end-of-generation tokens.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when the model has fewer
    ///   sequences or too short a context.
    func benchmarkPlans(promptTokens: Int, generatedTokens: Int, sequences: Int) throws -> [GenerationPlan] {
        guard (1...configuration.serving.parallelSequences).contains(sequences) else {
            throw LocalModel.Error.invalidOption(name: "sequences", reason: "\(sequences) is not between 1 and the model's \(configuration.serving.parallelSequences) parallel sequences")
        }
        guard promptTokens >= 1, generatedTokens >= 1, promptTokens + generatedTokens + 1 <= contextLength else {
            throw LocalModel.Error.invalidOption(name: "test", reason: "pp \(promptTokens) + tg \(generatedTokens) does not fit a context of \(contextLength)")
        }
        var random = SplitMix64()
        let vocabulary = Int32(tokenizer.vocabularySize)
        let bos = tokenizer.addsBeginningOfSequence ? llama_vocab_bos(handle.vocabulary) : nil
        return (0..<sequences).map { _ in
            var tokens = (0..<promptTokens).map { _ in Int32.random(in: 0..<vocabulary, using: &random) }
            if let bos { tokens[0] = bos }
            var plan = GenerationPlan(promptTokens: tokens, options: .init(maximumResponseTokens: generatedTokens + 1,
                                                                          sampling: .greedy))
            plan.ignoresEndOfGeneration = true
            return plan
        }
    }

    /// The scheduler with its cache emptied, so that requests submitted together take sequences
    /// 0, 1, … in order and reuse nothing.
    /// - Throws: ``LocalModel/Error/busy(queuedRequests:)`` while other requests run on the model.
    func emptiedScheduler() throws -> BatchScheduler {
        let scheduler = try scheduler()
        guard scheduler.clearCache() else {
            throw LocalModel.Error.busy(queuedRequests: scheduler.waitingCount)
        }
        return scheduler
    }

    /// Starts measuring where the scheduler's steps spend their time (``StepTimes``), for
    /// whatever runs on the model until ``stopMeasuringSteps()``: each step then waits for the
    /// device explicitly.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)``.
    package func measureSteps() throws {
        try scheduler().measureSteps()
    }

    /// What was measured since ``measureSteps()``, for generation steps and for steps with
    /// prompt tokens; nil when nothing was being measured.
    package func stopMeasuringSteps() -> (generation: StepTimes, prompt: StepTimes)? {
        batchScheduler?.stopMeasuringSteps()
    }

    /// Submits every plan in one go (so that they start in the same step) and waits for all.
    package func generateTogether(_ plans: [GenerationPlan]) async throws -> [GenerationOutcome] {
        let scheduler = try scheduler()
        let contextLimit = contextLength
        return try await withCheckedThrowingContinuation { continuation in
            let flags = plans.map { _ in CancellationFlag() }
            let collector = OutcomeCollector(flags: flags, continuation: continuation)
            for (index, plan) in plans.enumerated() {
                let request = GenerationRequest(plan: plan, contextLimit: contextLimit, cancellation: flags[index]) { _ in }
                do {
                    try scheduler.submit(request) { collector.record($0, at: index) }
                } catch {
                    collector.record(.failure(error), at: index)
                }
            }
        }
    }
}

/// Gathers the outcomes of several requests (on the model's thread) and resumes once; the
/// first failure cancels the others.
private final class OutcomeCollector: @unchecked Sendable {
    private let flags: [CancellationFlag]
    private var outcomes: [GenerationOutcome?]
    private var continuation: CheckedContinuation<[GenerationOutcome], any Error>?

    init(flags: [CancellationFlag], continuation: CheckedContinuation<[GenerationOutcome], any Error>) {
        self.flags = flags
        outcomes = Array(repeating: nil, count: flags.count)
        self.continuation = continuation
    }

    func record(_ result: Result<GenerationOutcome, any Error>, at index: Int) {
        switch result {
        case .success(let outcome):
            outcomes[index] = outcome
            if outcomes.allSatisfy({ $0 != nil }) {
                continuation?.resume(returning: outcomes.compactMap { $0 })
                continuation = nil
            }
        case .failure(let error):
            flags.forEach { $0.raise() }
            continuation?.resume(throwing: error)
            continuation = nil
        }
    }
}
