import Testing
@testable import LocalLLMKitEngine

/// The draft planner's choices from measured step costs and acceptance (no model: the numbers
/// are this machine's and an H200's, as measured by llama-bench).
@Suite("Draft planner")
struct DraftPlannerTests {
    /// Qwen2.5-Coder-0.5B on this 2-core CPU (llama-bench pp1, 2, 3, 4, 6, 8 and 16 plus sampling,
    /// ms; the counts between on the line): a row costs a good part of a step.
    static let cpuMilliseconds: [Int: Double] = {
        let measured: [(rows: Int, milliseconds: Double)] = [(1, 23.7), (2, 34.1), (3, 42.3), (4, 48.5), (6, 66.3), (8, 86.2), (17, 165)]
        var costs: [Int: Double] = [:]
        for (low, high) in zip(measured, measured.dropFirst()) {
            for rows in low.rows...high.rows {
                costs[rows] = low.milliseconds + Double(rows - low.rows) / Double(high.rows - low.rows) * (high.milliseconds - low.milliseconds)
            }
        }
        return costs
    }()

    static func planner(costs: [Int: Double], sequences: Int = 1, maximumDraft: Int = 16) -> DraftPlanner {
        var planner = DraftPlanner(sequenceCount: sequences, maximumDraft: maximumDraft, maximumRows: 64)
        for _ in 0..<2 {        // twice: a row count's first step is left out
            for (rows, milliseconds) in costs { planner.recordStep(rows: rows, seconds: milliseconds / 1000) }
        }
        return planner
    }

    /// Every row count from 1 to `rows` at `base` milliseconds plus `perRow` for each further row.
    static func linearCosts(base: Double, perRow: Double, rows: Int = 17) -> [Int: Double] {
        Dictionary(uniqueKeysWithValues: (1...rows).map { ($0, base + perRow * Double($0 - 1)) })
    }

    @Test("drafts that are always accepted are checked whole; drafts that are always wrong not at all")
    func followsAcceptance() {
        var right = Self.planner(costs: Self.cpuMilliseconds)
        var wrong = right
        for _ in 0..<8 {
            right.recordDraft(drafted: 16, accepted: 16, of: 0)
            wrong.recordDraft(drafted: 16, accepted: 0, of: 0)
        }
        #expect(right.lengths(for: [(0, 16)], rows: 1) == [16])
        #expect(wrong.lengths(for: [(0, 16)], rows: 1) == [0])
    }

    @Test("on a CPU, a draft whose first token is right a quarter of the time is not worth checking; where rows are nearly free, it is")
    func followsCost() {
        var cpu = Self.planner(costs: Self.cpuMilliseconds)
        var gpu = Self.planner(costs: Self.linearCosts(base: 10, perRow: 0.05))
        for accepted in [0, 0, 0, 1, 0, 0, 0, 1] {
            cpu.recordDraft(drafted: 16, accepted: accepted, of: 0)
            gpu.recordDraft(drafted: 16, accepted: accepted, of: 0)
        }
        #expect(cpu.lengths(for: [(0, 16)], rows: 1) == [0])
        #expect(gpu.lengths(for: [(0, 16)], rows: 1)[0] >= 1)
        // Right half the time, but then for the whole draft: a long draft pays even here (5 rows
        // or 17 give about the same rate).
        var halves = Self.planner(costs: Self.cpuMilliseconds)
        for accepted in [0, 16, 0, 16, 0, 16, 0, 16] { halves.recordDraft(drafted: 16, accepted: accepted, of: 0) }
        #expect(halves.lengths(for: [(0, 16)], rows: 1)[0] >= 4)
    }

    @Test("drafts that are right for a while and then wrong are checked about that far")
    func learnsWhereDraftsGoWrong() {
        var planner = Self.planner(costs: Self.linearCosts(base: 20, perRow: 3))
        for _ in 0..<10 { planner.recordDraft(drafted: 16, accepted: 4, of: 0) }
        let chances = planner.chances(of: 0, count: 16)
        #expect(chances[3] > 0.6 && chances[4] < chances[3] / 3, "\(chances)")
        #expect((4...5).contains(planner.lengths(for: [(0, 16)], rows: 1)[0]))
    }

    @Test("with several sequences, the likelier drafts get the rows")
    func sharesRowsByGain() {
        var planner = Self.planner(costs: Self.linearCosts(base: 20, perRow: 6, rows: 40), sequences: 3)
        for _ in 0..<8 {
            planner.recordDraft(drafted: 8, accepted: 8, of: 0)
            planner.recordDraft(drafted: 8, accepted: 0, of: 1)
        }
        let lengths = planner.lengths(for: [(0, 8), (1, 8), (2, 8)], rows: 3)
        #expect(lengths[0] == 8 && lengths[1] == 0 && lengths[0] > lengths[2], "\(lengths)")
        #expect(planner.lengths(for: [(0, 3)], rows: 3) == [3], "a candidate's maximum is kept")
    }

    @Test("a new request starts from the model's recent drafts, lightly, and its own drafts soon outweigh them")
    func newRequestsStartFromRecentDrafts() {
        var planner = Self.planner(costs: Self.cpuMilliseconds, sequences: 2)
        planner.reset(1)
        #expect(planner.chances(of: 1, count: 1) == [0.5], "without any draft yet, one half")
        for _ in 0..<10 { planner.recordDraft(drafted: 8, accepted: 8, of: 0) }
        planner.reset(1)
        let start = planner.chances(of: 1, count: 1)[0]
        #expect(start > 0.6 && start < planner.chances(of: 0, count: 1)[0], "\(start)")
        for _ in 0..<3 { planner.recordDraft(drafted: 8, accepted: 0, of: 1) }
        #expect(planner.chances(of: 1, count: 1)[0] < 0.4)
    }

    @Test("a step's cost lies on the line through the counts measured around it")
    func stepCostLine() {
        var planner = Self.planner(costs: [1: 20])
        #expect(planner.expectedSeconds(rows: 5) <= 0.020 * 2, "with one count measured, more rows are guessed cheap")
        planner.recordStep(rows: 9, seconds: 0.300)
        #expect(planner.expectedSeconds(rows: 5) <= 0.020 * 2, "a row count's first step is left out")
        planner.recordStep(rows: 9, seconds: 0.100)
        #expect(abs(planner.expectedSeconds(rows: 5) - 0.060) < 1e-9, "between two counts: on their line")
        #expect(abs(planner.expectedSeconds(rows: 13) - 0.100 * (1 + 0.25 * 4 / 9)) < 1e-9,
                "past the most rows: a quarter of an average row per row")
        planner.recordStep(rows: 5, seconds: 0.090)
        #expect(abs(planner.expectedSeconds(rows: 5) - 0.060) < 1e-9, "a slow first step at a new shape: left out, the line")
        planner.recordStep(rows: 5, seconds: 0.050)
        #expect(planner.expectedSeconds(rows: 5) == 0.050, "measured below the line: the measurement")
        for _ in 0..<3 { planner.recordStep(rows: 9, seconds: 0.140) }
        #expect(planner.expectedSeconds(rows: 9) == 0.140, "only the last few steps count")
    }

    @Test("a GPU's slow first step at a new batch shape does not stop drafting")
    func firstStepLeftOut() {
        // An H100 with SmolLM2: a one-row step takes 1.09 ms, the first five-row step 11.5 ms
        // (the shape's kernels load), later ones about 1.3 ms.
        var planner = DraftPlanner(sequenceCount: 1, maximumDraft: 16, maximumRows: 64)
        for _ in 0..<4 { planner.recordStep(rows: 1, seconds: 0.00109) }
        for _ in 0..<8 { planner.recordDraft(drafted: 4, accepted: 3, of: 0) }
        planner.recordStep(rows: 5, seconds: 0.0115)
        #expect(planner.lengths(for: [(0, 16)], rows: 1)[0] >= 3)
        planner.recordStep(rows: 5, seconds: 0.0013)
        #expect(planner.expectedSeconds(rows: 5) == 0.0013)
        #expect(planner.lengths(for: [(0, 16)], rows: 1)[0] >= 3)
    }

    @Test("a draft model's drafting time counts against its drafts")
    func draftingTime() {
        var planner = Self.planner(costs: Self.linearCosts(base: 20, perRow: 1))
        for _ in 0..<8 { planner.recordDraft(drafted: 3, accepted: 3, of: 0) }
        #expect(planner.lengths(for: [(0, 3)], rows: 1) == [3])
        planner.recordDrafting(tokens: 3, seconds: 3 * 0.030)    // each drafted token costs more than a step
        #expect(planner.lengths(for: [(0, 3)], rows: 1) == [0])
    }

    @Test("a slow drafting call is forgotten once drafting is measured faster")
    func fastestRecentDrafting() {
        var planner = Self.planner(costs: Self.linearCosts(base: 20, perRow: 1))
        for _ in 0..<8 { planner.recordDraft(drafted: 3, accepted: 3, of: 0) }
        planner.recordDrafting(tokens: 3, seconds: 3 * 0.030)
        #expect(planner.lengths(for: [(0, 3)], rows: 1) == [0])
        planner.recordDrafting(tokens: 3, seconds: 3 * 0.002)
        #expect(planner.lengths(for: [(0, 3)], rows: 1) == [3])
        for _ in 0..<3 { planner.recordDrafting(tokens: 3, seconds: 3 * 0.030) }
        #expect(planner.lengths(for: [(0, 3)], rows: 1) == [0], "only the last few calls count")
    }
}
