extension LocalModel {
    /// Generation steps with idle sequences between generating ones, with and without their
    /// filler rows (``GapFillerRule``), for `llmkit bench --parallel B --gaps`.
    package struct GapSteps: Sendable {
        /// Where the time of the generation steps went with filler rows.
        package var filled: StepTimes
        /// The same steps without them.
        package var unfilled: StepTimes
    }

    /// Measures generation steps where every other sequence sits idle: `sequences` requests of
    /// `promptTokens` random tokens, submitted together on an emptied cache (so request *i* takes
    /// sequence *i*), of which the odd-numbered end with their first token and the others
    /// generate `generatedTokens` more, greedily. Runs the requests `pairs` times in each way,
    /// filled and unfilled alternating ABBA, and returns the sums.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when the model has fewer
    ///   sequences or too short a context, ``LocalModel/Error/busy(queuedRequests:)`` while other
    ///   requests run on the model, or the error that stopped a request.
    package func measureGapSteps(promptTokens: Int, generatedTokens: Int, sequences: Int, pairs: Int) async throws -> GapSteps {
        var plans = try benchmarkPlans(promptTokens: promptTokens, generatedTokens: generatedTokens, sequences: sequences)
        for index in plans.indices where index % 2 == 1 { plans[index].options.maximumResponseTokens = 1 }
        var result = GapSteps(filled: StepTimes(), unfilled: StepTimes())
        for run in 0..<(2 * pairs) {
            let filling = run % 4 == 0 || run % 4 == 3
            let scheduler = try emptiedScheduler()
            scheduler.fillsGaps = filling
            scheduler.measureSteps()
            defer { scheduler.fillsGaps = true }
            do {
                _ = try await generateTogether(plans)
            } catch {
                _ = scheduler.stopMeasuringSteps()
                throw error
            }
            let times = scheduler.stopMeasuringSteps()?.generation ?? StepTimes()
            if filling { result.filled.add(times) } else { result.unfilled.add(times) }
        }
        return result
    }
}
