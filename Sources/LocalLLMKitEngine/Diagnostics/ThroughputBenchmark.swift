import CLlama

extension LocalModel {
    /// A throughput test in llama-bench's terms: evaluate `promptTokens` random
    /// tokens as one prompt (pp), then generate `generatedTokens` tokens one at a
    /// time (tg).
    public struct ThroughputTest: Sendable, Equatable, CustomStringConvertible {
        /// Prompt tokens evaluated in batches (llama-bench's `n_prompt`).
        public var promptTokens: Int
        /// Tokens decoded one by one (llama-bench's `n_gen`).
        public var generatedTokens: Int

        /// Creates a test; at least one of the counts must be positive.
        public init(promptTokens: Int = 0, generatedTokens: Int = 0) {
            self.promptTokens = promptTokens
            self.generatedTokens = generatedTokens
        }

        /// llama-bench's name for it: `pp512`, `tg128` or `pp512+tg128`.
        public var description: String {
            switch (promptTokens, generatedTokens) {
            case (let p, 0): return "pp\(p)"
            case (0, let g): return "tg\(g)"
            case (let p, let g): return "pp\(p)+tg\(g)"
            }
        }
    }
}

extension LocalModel {
    /// The timings of one ``LocalModel/ThroughputTest``, one sample per repetition.
    public struct ThroughputMeasurement: Sendable, Equatable {
        /// The test.
        public var test: LocalModel.ThroughputTest
        /// CPU threads used.
        public var threads: Int
        /// The `n_batch` and `n_ubatch` asked for (llama.cpp clamps `n_batch` to the context).
        public var batchSize: Int, microBatchSize: Int
        /// Wall time of each repetition, in nanoseconds.
        public var samplesNanoseconds: [UInt64]

        /// Tokens per second of each repetition.
        public var samplesTokensPerSecond: [Double] {
            let tokens = Double(test.promptTokens + test.generatedTokens)
            return samplesNanoseconds.map { tokens * 1e9 / Double(max($0, 1)) }
        }

        /// The mean of ``samplesTokensPerSecond``.
        public var averageTokensPerSecond: Double { Self.mean(samplesTokensPerSecond) }

        /// The sample standard deviation of ``samplesTokensPerSecond`` (0 for one sample).
        public var standardDeviationTokensPerSecond: Double { Self.standardDeviation(samplesTokensPerSecond) }

        /// The mean of ``samplesNanoseconds``.
        public var averageNanoseconds: Double { Self.mean(samplesNanoseconds.map { Double($0) }) }

        /// The sample standard deviation of ``samplesNanoseconds``.
        public var standardDeviationNanoseconds: Double { Self.standardDeviation(samplesNanoseconds.map { Double($0) }) }

        package static func mean(_ values: [Double]) -> Double {
            values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
        }

        package static func standardDeviation(_ values: [Double]) -> Double {
            guard values.count > 1 else { return 0 }
            let average = mean(values)
            let squares = values.reduce(0) { $0 + ($1 - average) * ($1 - average) }
            return (squares / Double(values.count - 1)).squareRoot()
        }
    }
}

extension LocalModel {
    /// Measures throughput with llama-bench's method, through this library's own
    /// decode path: a fresh context of `promptTokens + generatedTokens` tokens,
    /// one warm-up run, then `repetitions` timed runs on an emptied cache.
    ///
    /// - Parameters:
    ///   - test: what to evaluate.
    ///   - repetitions: timed runs (llama-bench's `-r`, default 5).
    ///   - threads: CPU threads; `nil` uses the model's configuration.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` for empty tests,
    ///   or the decode error that stopped a run.
    public func measureThroughput(_ test: LocalModel.ThroughputTest, repetitions: Int = 5, threads: Int? = nil) throws -> LocalModel.ThroughputMeasurement {
        guard (0...(1 << 24)).contains(test.promptTokens), (0...(1 << 24)).contains(test.generatedTokens),
              test.promptTokens + test.generatedTokens > 0 else {
            throw LocalModel.Error.invalidOption(name: "test", reason: "\(test) evaluates no tokens")
        }
        guard repetitions >= 1 else { throw LocalModel.Error.invalidOption(name: "repetitions", reason: "\(repetitions) is not at least 1") }
        let threadCount = threads ?? configuration.effectiveThreads
        let benchContext = try makeContext(contextLength: test.promptTokens + test.generatedTokens,
                                           fullSlidingWindowCache: false, threads: threadCount)
        var random = SplitMix64()                 // cheap, like llama-bench's std::rand()
        let vocabulary = Int32(tokenizer.vocabularySize)
        let bos = tokenizer.addsBeginningOfSequence ? llama_vocab_bos(handle.vocabulary) : nil

        func randomToken() -> Int32 { Int32.random(in: 0..<vocabulary, using: &random) }
        func runPrompt(_ count: Int) throws {
            var tokens = (0..<count).map { _ in randomToken() }
            if let bos, !tokens.isEmpty { tokens[0] = bos }
            try benchContext.decode(tokens[...], startingAt: 0)
            benchContext.synchronize()
        }
        func runGeneration(_ count: Int, from start: Int) throws {
            var token = bos ?? randomToken()
            for step in 0..<count {
                try benchContext.decode([token], startingAt: start + step)
                benchContext.synchronize()
                token = randomToken()
            }
        }

        if test.promptTokens > 0 { try runPrompt(test.promptTokens) }
        if test.generatedTokens > 0 { try runGeneration(1, from: test.promptTokens) }
        var samples: [UInt64] = []
        for _ in 0..<repetitions {
            benchContext.clearMemory()
            let start = ContinuousClock.now
            if test.promptTokens > 0 { try runPrompt(test.promptTokens) }
            if test.generatedTokens > 0 { try runGeneration(test.generatedTokens, from: test.promptTokens) }
            let elapsed = ContinuousClock.now - start
            samples.append(UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000))
        }
        return LocalModel.ThroughputMeasurement(test: test, threads: threadCount, batchSize: configuration.context.batchSize,
                                     microBatchSize: min(configuration.context.microBatchSize, configuration.context.batchSize),
                                     samplesNanoseconds: samples)
    }
}
