/// One request handed to the ``BatchScheduler``: a plan, its limits, and where its output goes.
package struct GenerationRequest: Sendable {
    /// What to generate.
    package var plan: GenerationPlan
    /// The most tokens (prompt plus answer) its sequence may hold: the model's context length,
    /// or a conversation's smaller cap.
    package var contextLimit: Int
    /// Raised to stop it.
    package var cancellation: CancellationFlag
    /// Receives each chunk of text, on the model's thread.
    package var emit: @Sendable (String) -> Void
    /// Receives each sampled token's log-probability as it is measured (with
    /// ``CompletionOptions/logProbabilityAlternatives``), on the model's thread, before its text.
    package var observeLogProbability: (@Sendable (TokenLogProbability) -> Void)?

    /// A request for `plan`.
    package init(plan: GenerationPlan, contextLimit: Int, cancellation: CancellationFlag,
                 emit: @escaping @Sendable (String) -> Void) {
        self.plan = plan
        self.contextLimit = contextLimit
        self.cancellation = cancellation
        self.emit = emit
    }
}
