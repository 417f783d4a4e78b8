extension LocalModel {
    /// Generation steps with idle sequences between generating ones, with and without their
    /// filler rows (``GapFillerRule``), for `llmkit bench --parallel B --gaps`.
    package struct GapSteps: Sendable {
        /// Where the time of the generation steps went with filler rows.
        package var filled: StepTimes
        /// The same steps without them.
        package var unfilled: StepTimes
        /// The same steps as the scheduler chooses by measuring (``GapFillerChoice``), learning
        /// from the first of these runs on.
        package var measured: StepTimes
    }

    /// Measures generation steps where every other sequence sits idle: `sequences` requests of
    /// `promptTokens` random tokens, submitted together on an emptied cache (so request *i* takes
    /// sequence *i*), of which the odd-numbered end with their first token and the others
    /// generate `generatedTokens` more, greedily. Runs the requests `runs` times in each way,
    /// filled, unfilled and as measured, in the order ABCCBA…, and returns the sums.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when the model has fewer
    ///   sequences or too short a context, ``LocalModel/Error/busy(queuedRequests:)`` while other
    ///   requests run on the model, or the error that stopped a request.
    package func measureGapSteps(promptTokens: Int, generatedTokens: Int, sequences: Int, runs: Int) async throws -> GapSteps {
        var plans = try benchmarkPlans(promptTokens: promptTokens, generatedTokens: generatedTokens, sequences: sequences)
        for index in plans.indices where index % 2 == 1 { plans[index].options.maximumResponseTokens = 1 }
        var result = GapSteps(filled: StepTimes(), unfilled: StepTimes(), measured: StepTimes())
        let modes: [GapFillerChoice.Mode] = [.always, .never, .measured, .measured, .never, .always]
        let scheduler = try scheduler()
        let usual = scheduler.gapChoice
        scheduler.gapChoice = GapFillerChoice()
        defer { scheduler.gapChoice = usual }
        for run in 0..<(3 * runs) {
            let mode = modes[run % modes.count]
            _ = try emptiedScheduler()
            scheduler.gapChoice.mode = mode
            scheduler.measureSteps()
            do {
                _ = try await generateTogether(plans)
            } catch {
                _ = scheduler.stopMeasuringSteps()
                throw error
            }
            let times = scheduler.stopMeasuringSteps()?.generation ?? StepTimes()
            switch mode {
            case .always: result.filled.add(times)
            case .never: result.unfilled.add(times)
            case .measured: result.measured.add(times)
            }
        }
        return result
    }
}
