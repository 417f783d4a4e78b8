/// Decides how many drafted tokens each generating sequence's step checks, so that speculation
/// pays for itself: the lengths that maximise the step's expected tokens per second.
///
/// A draft token is worth its chance of being accepted, and checking it costs a batch row. On a
/// GPU a row is nearly free, so long drafts pay even when they are often wrong; on a CPU with
/// few cores a row costs a good part of a step, so only drafts that are likely right pay, and
/// a draft that is usually wrong costs more than it gains. The planner measures both as
/// generation goes:
/// - **Cost**: the seconds of a step by the rows it decodes (steps without prompt tokens; the
///   fastest of the last few per row count, on the line through the counts around it: see
///   ``expectedSeconds(rows:)``), and a draft model's own drafting time per drafted token.
/// - **Acceptance**, per sequence: for each position of a draft, the chance that it is accepted
///   when every token before it was, from the sequence's recent drafts (decaying counts). Drafts
///   tend to be right for a while or wrong at once, which one rate for every position would miss.
///
/// With `n` sequences generating, a step decodes `n` rows that each yield a token for sure.
/// The k-th token of a sequence's draft adds the chance that its first k tokens are all
/// accepted; tokens are added in the order of that gain, and the planner keeps the count at
/// which expected tokens ÷ expected seconds is highest. Without any draft that pays, every
/// sequence decodes alone.
package struct DraftPlanner: Sendable {
    /// One sequence's recent drafts: for each position of a draft, how many drafts reached it
    /// (every token before it accepted) and how many were rejected there, as decayed counts
    /// (censored where a draft was shorter: a Kaplan–Meier estimate).
    struct Acceptance: Sendable, Equatable {
        /// Index i: drafts that reached position i + 1, and those rejected there.
        private var reached: [Double]
        private var rejected: [Double]

        init(positions: Int, doubt: Double = 0) {
            reached = Array(repeating: 0, count: max(positions, 1))
            rejected = reached
            reached[0] = doubt
            rejected[0] = doubt
        }

        /// The chance that each of the first `count` tokens of the next draft is accepted
        /// (each chance includes those before it).
        ///
        /// The first position's rejection rate starts at one half; a later position's leans on
        /// the rate of every later position together while it has few drafts of its own, so
        /// that a position rarely reached does not swing the plan.
        func survival(_ count: Int) -> [Double] {
            let laterReached = reached.dropFirst().reduce(0, +), laterRejected = rejected.dropFirst().reduce(0, +)
            let laterRate = (laterRejected + 0.2) / (laterReached + 2)
            var chance = 1.0
            return (0..<min(count, reached.count)).map { index in
                let rate = index == 0 ? (rejected[0] + 1) / (reached[0] + 2)
                    : (rejected[index] + DraftPlanner.priorWeight * laterRate) / (reached[index] + DraftPlanner.priorWeight)
                chance *= 1 - min(max(rate, DraftPlanner.lowestRejection), 1)
                return chance
            }
        }

        /// These counts scaled down to at most `drafts` drafts' worth.
        func weighing(atMost drafts: Double) -> Acceptance {
            guard reached[0] > drafts else { return self }
            var scaled = self
            let factor = drafts / reached[0]
            for index in reached.indices {
                scaled.reached[index] *= factor
                scaled.rejected[index] *= factor
            }
            return scaled
        }

        /// Adds a draft of `drafted` tokens of which the first `accepted` were accepted.
        mutating func add(drafted: Int, accepted: Int) {
            guard drafted > 0 else { return }
            let accepted = min(max(accepted, 0), drafted)
            for index in reached.indices {
                reached[index] *= DraftPlanner.decay
                rejected[index] *= DraftPlanner.decay
            }
            for index in 0..<min(accepted + 1, drafted, reached.count) { reached[index] += 1 }
            if accepted < drafted, accepted < rejected.count { rejected[accepted] += 1 }
        }
    }

    /// How much of a sequence's past weighs on each new draft's count.
    static let decay = 0.85
    /// No position's rejection rate is estimated below this, so that a run of accepted drafts
    /// never makes a long draft look free of risk.
    static let lowestRejection = 0.01
    /// How many drafts' worth of the model's recent drafts a new request starts from.
    static let startingWeight = 2.0
    /// How many drafts' worth a later position's own rate needs to outweigh the rate of the
    /// later positions together.
    static let priorWeight = 2.0
    /// How many recent steps of each row count, and recent drafting calls, are kept: the
    /// fastest of them is the estimate.
    static let keptSteps = 3

    /// The seconds of recent steps by the rows they decoded (index 0 unused), newest last.
    private var stepSeconds: [[Double]]
    /// Seconds of drafting per drafted token (a draft model's decodes) of recent drafting
    /// calls, newest last.
    private var draftSeconds: [Double] = []
    /// The row counts whose first step has been seen (and left out).
    private var warmedRows: Set<Int> = []
    private var acceptance: [Acceptance]
    /// Every sequence's drafts together: where a new request starts from.
    private var recent: Acceptance
    private let maximumDraft: Int

    /// A planner for `sequenceCount` sequences that draft at most `maximumDraft` tokens, whose
    /// steps decode at most `maximumRows` rows.
    /// - Parameter doubt: drafts rejected at their first token that the model's recent drafts
    ///   start with: more than 0 when drafts can be watched for free before any is checked
    ///   (shadow drafts), so that only drafts seen to be right cost rows.
    package init(sequenceCount: Int, maximumDraft: Int, maximumRows: Int, doubt: Double = 0) {
        self.maximumDraft = max(maximumDraft, 1)
        stepSeconds = Array(repeating: [], count: max(maximumRows, 1) + 1)
        recent = Acceptance(positions: self.maximumDraft, doubt: doubt)
        acceptance = Array(repeating: recent, count: sequenceCount)
    }

    /// Starts `sequence` afresh for a new request: from the model's recent drafts, weighing as
    /// much as ``startingWeight`` drafts, so that its own drafts soon outweigh them.
    package mutating func reset(_ sequence: Int) {
        guard acceptance.indices.contains(sequence) else { return }
        acceptance[sequence] = recent.weighing(atMost: Self.startingWeight)
    }

    /// Adds a step without prompt tokens that decoded `rows` rows in `seconds` (drafting excluded).
    ///
    /// The estimate for a row count is the fastest of its last few steps: a step is slowed by
    /// other work on the machine, never sped up. The first step of each row count is left out:
    /// it also pays for llama.cpp's planning of a new batch shape's compute graph and, on a GPU,
    /// for loading that shape's kernels (ten times a step there), and a count measured that slow
    /// would never be tried again.
    package mutating func recordStep(rows: Int, seconds: Double) {
        guard stepSeconds.indices.contains(rows), rows > 0, seconds.isFinite, seconds > 0 else { return }
        guard warmedRows.contains(rows) else {
            warmedRows.insert(rows)
            return
        }
        stepSeconds[rows].append(seconds)
        if stepSeconds[rows].count > Self.keptSteps { stepSeconds[rows].removeFirst() }
    }

    /// Adds a drafting call whose longest draft asked for `tokens` tokens and took `seconds`;
    /// the fastest of the last few, per token, is the estimate, as for steps.
    package mutating func recordDrafting(tokens: Int, seconds: Double) {
        guard tokens > 0, seconds.isFinite, seconds >= 0 else { return }
        draftSeconds.append(seconds / Double(tokens))
        if draftSeconds.count > Self.keptSteps { draftSeconds.removeFirst() }
    }

    /// Adds a draft of `drafted` tokens for `sequence`, whose first `accepted` were accepted.
    package mutating func recordDraft(drafted: Int, accepted: Int, of sequence: Int) {
        guard acceptance.indices.contains(sequence) else { return }
        acceptance[sequence].add(drafted: drafted, accepted: accepted)
        recent.add(drafted: drafted, accepted: accepted)
    }

    /// The chance that each of the first `count` tokens of `sequence`'s next draft is accepted.
    package func chances(of sequence: Int, count: Int) -> [Double] {
        let estimate = acceptance.indices.contains(sequence) ? acceptance[sequence] : Acceptance(positions: maximumDraft)
        return estimate.survival(count)
    }

    /// The seconds a step of `rows` rows is expected to take (in units of an unmeasured step's
    /// row while nothing is measured).
    ///
    /// The line through the measured counts around `rows`, or its own measurement where that
    /// is lower (the first step of a new batch shape is slowed by llama.cpp's planning of its
    /// compute graph until it is measured again). Past the most rows measured, each further row
    /// is guessed at a quarter of an average row there: optimistic, so that longer drafts get
    /// tried, and a step's cost grows ever more slowly with its rows (measured on the CPU too).
    /// Counts between measured ones are not guessed optimistically: they would look cheap
    /// until tried, and the planner would try a new length every step.
    package func expectedSeconds(rows: Int) -> Double {
        expectedSeconds(rows: rows, measured: measuredSteps())
    }

    /// Each measured row count, fewest rows first, with its estimate: the fastest recent step.
    private func measuredSteps() -> [(rows: Int, seconds: Double)] {
        stepSeconds.indices.compactMap { index in stepSeconds[index].min().map { (rows: index, seconds: $0) } }
    }

    private func expectedSeconds(rows: Int, measured: [(rows: Int, seconds: Double)]) -> Double {
        let rows = max(rows, 1)
        guard !measured.isEmpty else { return 1 + 0.25 * Double(rows - 1) }
        let own = measured.first { $0.rows == rows }?.seconds
        let below = measured.last { $0.rows < rows }, above = measured.first { $0.rows > rows }
        let line: Double?
        switch (below, above) {
        case let (below?, above?):
            line = below.seconds + Double(rows - below.rows) / Double(above.rows - below.rows) * (above.seconds - below.seconds)
        case let (below?, nil) where own == nil:
            line = below.seconds * (1 + 0.25 * Double(rows - below.rows) / Double(below.rows))
        case let (nil, above?) where own == nil:
            line = above.seconds * (0.5 + 0.5 * Double(rows) / Double(above.rows))
        default:
            line = nil
        }
        return min(own ?? .infinity, line ?? .infinity)
    }

    /// How many tokens of its draft each candidate's step checks.
    /// - Parameters:
    ///   - candidates: the sequences that may draft and the most tokens each may.
    ///   - rows: the rows the step decodes without drafts (one per generating sequence).
    /// - Returns: a length for each candidate, in order, at most its maximum.
    package func lengths(for candidates: [(sequence: Int, maximum: Int)], rows: Int) -> [Int] {
        var lengths = Array(repeating: 0, count: candidates.count)
        let odds = candidates.map { chances(of: $0.sequence, count: $0.maximum) }
        // Drafting's seconds count only once steps are measured in seconds too.
        let draftSeconds = stepSeconds.contains { !$0.isEmpty } ? self.draftSeconds.min() ?? 0 : 0
        var expectedTokens = Double(max(rows, 1))
        var plannedRows = max(rows, 1)
        let measured = measuredSteps()
        var best = (rate: expectedTokens / expectedSeconds(rows: plannedRows, measured: measured), lengths: lengths)
        func gain(_ offset: Int) -> Double { lengths[offset] < odds[offset].count ? odds[offset][lengths[offset]] : 0 }
        while let next = candidates.indices.filter({ gain($0) > 0 }).max(by: { gain($0) < gain($1) }) {
            expectedTokens += gain(next)
            lengths[next] += 1
            plannedRows += 1
            let seconds = expectedSeconds(rows: plannedRows, measured: measured) + draftSeconds * Double(lengths.max() ?? 0)
            let rate = expectedTokens / seconds
            if rate > best.rate * (1 + 1e-9) { best = (rate, lengths) }
        }
        return best.lengths
    }

}
