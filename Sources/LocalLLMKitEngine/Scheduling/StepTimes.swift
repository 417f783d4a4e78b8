/// Where the time of the scheduler's steps goes (`llmkit bench --parallel … --step-times`), for
/// one kind of step: those that decode only generated tokens, or those that decode prompt tokens
/// (each kind has its own). While it measures, the scheduler waits for the device
/// explicitly after queueing a step, so that the wait shows apart from the sampling.
package struct StepTimes: Sendable, Equatable {
    /// Steps measured.
    package var steps = 0
    /// Tokens decoded in them.
    package var tokens = 0
    /// Of the steps with prompt tokens, those that also decoded generating sequences' rows.
    package var stepsWithGeneration = 0
    /// Of the generation steps, those that idle sequences' filler rows kept in one micro-batch
    /// (see ``GapFillerRule``).
    package var stepsWithFillers = 0
    /// From the start of a step until its batch goes to `llama_decode`: dropping cancelled
    /// requests, admitting waiting ones, building the batch.
    package var building: Duration = .zero
    /// Inside `llama_decode`: on a GPU, building the graph and queueing it.
    package var decoding: Duration = .zero
    /// The text work of the tokens decoded, while the device computes (on a GPU).
    package var text: Duration = .zero
    /// Waiting for the device to finish the step (`llama_synchronize`).
    package var waiting: Duration = .zero
    /// Fetching the logits and sampling every sequence (on a CPU, the text work too).
    package var sampling: Duration = .zero
    /// Ending requests after the sampling, and scheduling the next step.
    package var finishing: Duration = .zero
    /// From the end of the step before until the start of this one (for generation steps, only
    /// after a generation step): other work on the model's thread, and the hop to it.
    package var between: Duration = .zero

    package init() {}

    /// The phases, in the order a step goes through them.
    static var phaseFields: [(name: String, field: WritableKeyPath<StepTimes, Duration>)] {
        [("building", \.building), ("decoding", \.decoding), ("text", \.text), ("waiting", \.waiting),
         ("sampling", \.sampling), ("finishing", \.finishing), ("between", \.between)]
    }

    /// The phases with their names, in order.
    package var phases: [(name: String, duration: Duration)] {
        Self.phaseFields.map { ($0.name, self[keyPath: $0.field]) }
    }

    /// Milliseconds per step of `duration`.
    package func millisecondsPerStep(_ duration: Duration) -> Double {
        steps == 0 ? 0 : duration.seconds * 1e3 / Double(steps)
    }
}

extension StepTimes {
    /// Adds everything `other` measured.
    mutating func add(_ other: StepTimes) {
        steps += other.steps
        tokens += other.tokens
        stepsWithGeneration += other.stepsWithGeneration
        stepsWithFillers += other.stepsWithFillers
        for (_, field) in Self.phaseFields { self[keyPath: field] += other[keyPath: field] }
    }

    /// Adds one step's `times`, which decoded `tokens`, and the time since the step before (nil
    /// when it does not count); `fillers`: the filler rows it decoded besides.
    mutating func add(_ times: StepTimes, tokens: Int, between: Duration?, withGeneration: Bool = false, fillers: Int = 0) {
        steps += 1
        if withGeneration { stepsWithGeneration += 1 }
        if fillers > 0 { stepsWithFillers += 1 }
        self.tokens += tokens
        // A step's own laps never reach `between`: that is the time since the step before.
        for (_, field) in Self.phaseFields where field != \.between { self[keyPath: field] += times[keyPath: field] }
        self.between += between ?? .zero
    }
}

/// The laps of one scheduler step, for ``StepTimes``.
struct StepLaps {
    let start: ContinuousClock.Instant
    private(set) var last: ContinuousClock.Instant
    private(set) var times = StepTimes()

    init() {
        start = .now
        last = start
    }

    /// Adds the time since the last lap to `phase`.
    mutating func lap(_ phase: WritableKeyPath<StepTimes, Duration>) {
        let now = ContinuousClock.now
        times[keyPath: phase] += now - last
        last = now
    }
}
