import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Filler rows of idle sequences between generating ones (``GapFillerRule``).
@Suite("Gap fillers")
struct GapFillerTests {
    static let prompts = Array(BatchingTests.prompts.prefix(3))

    /// A model of three sequences, and plans of which the middle one ends after 2 tokens and
    /// the others go on for 24.
    static func load(_ layout: LocalModel.Configuration.CacheLayout) async throws -> (model: LocalModel, plans: [GenerationPlan]) {
        let model = try await TestModel.load(.init(contextLength: 512, parallelSequences: 3, cacheLayout: layout))
        let plans = try prompts.enumerated().map { index, prompt in
            GenerationPlan(promptTokens: try model.tokenize(prompt),
                           options: index == 1 ? .greedy(maximumResponseTokens: 2) : BatchingTests.options)
        }
        return (model, plans)
    }

    /// Three requests together on three sequences with a stream each; the middle one ends after
    /// 2 tokens, the others go on for 24, so sequence 1 sits idle between generating ones.
    @Test("an idle sequence between generating ones takes filler rows, and keeps what it held")
    func fillsAndKeeps() async throws {
        let (model, plans) = try await Self.load(.perSequence)
        let short = CompletionOptions.greedy(maximumResponseTokens: 2)
        try await model.measureSteps()
        let scheduler = try #require(await model.batchScheduler)
        scheduler.gapChoice.mode = .always
        let together = try await model.generateTogether(plans)
        let generation = try #require(await model.stopMeasuringSteps()).generation
        print("\(generation.steps) generation steps, \(generation.stepsWithFillers) with filler rows")
        // Every step after sequence 1's second token fills it.
        #expect(generation.steps == 23)
        #expect(generation.stepsWithFillers == 22)

        // The generating sequences decode as they would alone.
        let alone = try await BatchingTests.aloneTexts()
        for index in [0, 2] {
            #expect(together[index].tokens.count == BatchingTests.options.maximumResponseTokens)
            _ = try await BatchingTests.expectAgreement(together[index].tokens, alone: alone[index], prompt: Self.prompts[index],
                                                        model: model)
        }

        // Sequence 1's cache holds the positions of the tokens it decoded, none of the fillers'
        // (each step's filler went at the position after them).
        #expect(scheduler.slots[1].tokens.count >= plans[1].promptTokens.count)
        #expect(scheduler.context.lastPosition(of: 1) == scheduler.slots[1].tokens.count - 1)
        // And they are whole: a request going on from its prompt and answer reuses them and
        // decodes what a fresh model decodes.
        let held = plans[1].promptTokens + together[1].tokens
        let more = held + (try model.tokenize(" and", addingBeginningOfSequence: false))
        let reused = try await model.generateTogether([GenerationPlan(promptTokens: more, options: short, reusesCache: true)])[0]
        #expect(reused.statistics.cachedPromptTokens >= held.count - 1)
        let fresh = try await TestModel.load(.init(contextLength: 512, parallelSequences: 3, cacheLayout: .perSequence))
        let expected = try await fresh.generateTogether([GenerationPlan(promptTokens: more, options: short)])[0]
        _ = try await BatchingTests.expectAgreement(reused.tokens, alone: expected.tokens, promptTokens: more, label: "continued",
                                                    model: fresh)
    }

    @Test("by default the first gap step is filled, the next of its shape not, and their times decide")
    func measuredChoice() async throws {
        let (model, plans) = try await Self.load(.perSequence)
        try await model.measureSteps()
        _ = try await model.generateTogether(plans)
        let generation = try #require(await model.stopMeasuringSteps()).generation
        // 22 gap steps: the first filled, the second not; which way the rest went depends on
        // this machine's times, which the choice now holds.
        #expect((1...21).contains(generation.stepsWithFillers), "\(generation.stepsWithFillers)")
        let scheduler = try #require(await model.batchScheduler)
        let ratio = try #require(scheduler.gapChoice.ratio)
        print("unfilled ÷ filled: \(ratio); \(generation.stepsWithFillers) of \(generation.steps) steps filled")
        #expect(ratio > 0)
    }

    @Test("the choice: alternate until a pair of like steps, then the faster way, probing the other")
    func choice() {
        var choice = GapFillerChoice()
        let first = choice.fills()
        choice.record(shape: 7, filled: true, seconds: 1)
        let second = choice.fills()
        choice.record(shape: 8, filled: false, seconds: 3)          // another shape: no pair
        #expect(choice.ratio == nil)
        let third = choice.fills()
        #expect([first, second, third] == [true, false, true])
        choice.record(shape: 8, filled: true, seconds: 1)
        #expect(choice.ratio == 3)
        // Clearly faster filled: the other way once in 512 gap steps.
        let filled = (0..<1024).map { _ in choice.fills() }
        #expect(filled.filter { !$0 }.count == 2)
        // Pairs move the average: unfilled faster now.
        for _ in 0..<20 {
            choice.record(shape: 1, filled: true, seconds: 2)
            choice.record(shape: 1, filled: false, seconds: 1)
        }
        #expect(abs((choice.ratio ?? 0) - 0.5) < 0.01)
        let later = (0..<1024).map { _ in choice.fills() }
        #expect(later.filter { $0 }.count == 2)
        // Near 1: probes every 32 gap steps.
        for _ in 0..<40 {
            choice.record(shape: 2, filled: true, seconds: 1)
            choice.record(shape: 2, filled: false, seconds: 1.1)
        }
        #expect((1.05...1.15).contains(choice.ratio ?? 0))
        let close = (0..<320).map { _ in choice.fills() }
        #expect(close.filter { !$0 }.count == 10)
        // Steps of a fixed mode leave nothing behind: a measured choice then starts by filling.
        var switched = GapFillerChoice()
        switched.mode = .always
        _ = switched.fills()
        switched.record(shape: 3, filled: true, seconds: 1)
        switched.mode = .measured
        let firstMeasured = switched.fills()
        #expect(firstMeasured && switched.ratio == nil)
        var always = GapFillerChoice(), never = GapFillerChoice()
        (always.mode, never.mode) = (.always, .never)
        let ways = (0..<5).map { _ in (always.fills(), never.fills()) }
        #expect(ways.allSatisfy { $0 == (true, false) })
    }

    @Test("one pool of cells needs no fillers")
    func unifiedNeedsNone() async throws {
        let (model, plans) = try await Self.load(.unified)
        try await model.measureSteps()
        _ = try await model.generateTogether(plans)
        #expect(try #require(await model.stopMeasuringSteps()).generation.stepsWithFillers == 0)
    }

    @Test("the rule: every gap idle, short enough, with room, and no more fillers than rows")
    func rule() {
        let rule = GapFillerRule(cellsPerSequence: 100, keptWindow: 0)
        func gap(_ sequence: Int32, idle: Bool = true, held: Int = 10) -> GapFillerRule.Gap {
            .init(sequence: sequence, isIdle: idle, held: held)
        }
        let filled = rule.fillers(sequences: [0, 2, 4], gaps: [gap(1), gap(3, held: 0)], longest: 20)
        #expect(filled.map(\.sequence) == [1, 3])
        #expect(filled.map(\.position) == [10, 0])                  // each at its next position
        #expect(filled.allSatisfy { !$0.wantsLogits })
        #expect(rule.fillers(sequences: [0, 2], gaps: [], longest: 20).isEmpty)
        #expect(rule.fillers(sequences: [0, 2], gaps: [gap(1, idle: false)], longest: 20).isEmpty)    // a request's
        // Cells up to the generating ones' rounded up to 256 (which llama.cpp reads anyway), no more.
        let long = GapFillerRule(cellsPerSequence: 4096, keptWindow: 0)
        #expect(long.fillers(sequences: [0, 2], gaps: [gap(1, held: 255)], longest: 20).count == 1)
        #expect(long.fillers(sequences: [0, 2], gaps: [gap(1, held: 256)], longest: 20).isEmpty)
        #expect(long.fillers(sequences: [0, 2], gaps: [gap(1, held: 511)], longest: 300).count == 1)
        #expect(long.fillers(sequences: [0, 2, 4], gaps: [gap(1), gap(3, held: 600)], longest: 20).isEmpty)   // all or none
        #expect(rule.fillers(sequences: [0, 2], gaps: [gap(1, held: 99)], longest: 200).isEmpty)      // stream full
        #expect(rule.fillers(sequences: [0, 4], gaps: [gap(1), gap(2), gap(3)], longest: 20).isEmpty) // 3 fillers for 2 rows
        let window = GapFillerRule(cellsPerSequence: 100, keptWindow: 12)
        #expect(window.fillers(sequences: [0, 2], gaps: [gap(1, held: 10)], longest: 20).count == 1)
        #expect(window.fillers(sequences: [0, 2], gaps: [gap(1, held: 11)], longest: 20).isEmpty)     // could push one out
    }

    @Test("gaps between ascending sequences, and rows merged in id order")
    func missingAndMerging() {
        #expect(GapFillerRule.missing(between: [0, 1, 2]) == [])
        #expect(GapFillerRule.missing(between: [1, 3, 6]) == [2, 4, 5])
        #expect(GapFillerRule.missing(between: []) == [])
        #expect(GapFillerRule.missing(between: [0, 0, 2]) == nil)            // a sequence with two rows
        #expect(GapFillerRule.missing(between: [2, 1]) == nil)
        func row(_ sequence: Int32) -> InferenceContext.Entry { .init(token: 7, position: 0, sequence: sequence, wantsLogits: true) }
        let merged = GapFillerRule.merging([row(1), row(4)], into: [row(0), row(2), row(3), row(5)])
        #expect(merged.map(\.sequence) == [0, 1, 2, 3, 4, 5])
    }
}
