import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Steps in which every prompt ends take only prompts where each sequence has a KV stream of its
/// own (``BatchScheduler/leavesGenerationForNextStep(streams:generating:promptsLeft:batchSize:leftLastStep:)``).
@Suite("Prompt-only steps")
struct PromptStepTests {
    static func load(sequences: Int, batchSize: Int, layout: LocalModel.Configuration.CacheLayout) async throws -> LocalModel {
        try await TestModel.load(.init(contextLength: 256, batchSize: batchSize, parallelSequences: sequences, cacheLayout: layout))
    }

    /// Four requests of 32 prompt tokens and 3 generated ones on a fresh model, submitted
    /// together: what its steps with prompt tokens, and its generation steps, were.
    static func fourPrompts(batchSize: Int, layout: LocalModel.Configuration.CacheLayout) async throws
        -> (prompt: StepTimes, generation: StepTimes) {
        let model = try await load(sequences: 4, batchSize: batchSize, layout: layout)
        let measured = try await model.measureParallelThroughput(promptTokens: 32, generatedTokens: 3, sequences: 4, measuringSteps: true)
        return (try #require(measured.promptStepTimes), try #require(measured.stepTimes))
    }

    @Test("four prompts of 32 tokens in batches of 64: two prompt steps, neither with generating rows, where each sequence has its own stream")
    func promptsEndTogether() async throws {
        let (steps, generation) = try await Self.fourPrompts(batchSize: 64, layout: .perSequence)
        #expect(steps.steps == 2 && steps.tokens == 128)
        #expect(steps.stepsWithGeneration == 0)
        // Every sequence then generates in every step: 3 steps of 4 rows.
        #expect(generation.steps == 3 && generation.tokens == 12)

        // One pool of cells for all: generating rows share micro-batches with prompts, so they go
        // along, and the fourth prompt's last two tokens take a third step.
        let pooled = try await Self.fourPrompts(batchSize: 64, layout: .unified).prompt
        #expect(pooled.steps == 3)
        #expect(pooled.stepsWithGeneration == 2)
    }

    @Test("with prompts over several batches, generating rows go along with them")
    func longPromptsDoNotStallGeneration() async throws {
        // Batches of 48: the first step takes prompt 0 and half of prompt 1; in the next, the
        // prompts left (16 + 32 + 32) do not fit, so sequence 0 generates beside them.
        let steps = try await Self.fourPrompts(batchSize: 48, layout: .perSequence).prompt
        // The last step of prompts (1 + 32 tokens) ends both, and takes only them.
        #expect(steps.steps == 3)
        #expect(steps.stepsWithGeneration == 1)
    }

    @Test("8 requests in batches of 16 tokens agree with each run alone, up to near ties")
    func agreesWithAlone() async throws {
        let alone = try await BatchingTests.aloneTexts()
        let model = try await Self.load(sequences: 8, batchSize: 16, layout: .perSequence)
        let plans = try BatchingTests.prompts.map { GenerationPlan(promptTokens: try model.tokenize($0), options: BatchingTests.options) }
        try await model.measureSteps()
        let together = try await model.generateTogether(plans)
        // Besides the first step (nothing generates yet), at least one step took only prompts
        // while sequences were generating.
        let prompt = try #require(await model.stopMeasuringSteps()).prompt
        print("8 prompts in batches of 16: \(prompt.steps) prompt steps, \(prompt.stepsWithGeneration) with generating rows")
        #expect(prompt.steps - prompt.stepsWithGeneration >= 2)
        for (index, outcome) in together.enumerated() {
            #expect(outcome.tokens.count == BatchingTests.options.maximumResponseTokens)
            _ = try await BatchingTests.expectAgreement(outcome.tokens, alone: alone[index], prompt: BatchingTests.prompts[index],
                                                        model: model)
        }
    }

    @Test("the rule: a stream per sequence, generating rows, every prompt ending in the step, not twice in a row")
    func rule() {
        func leaves(streams: Int = 4, generating: Int = 2, prompts: [Int?] = [30, 20], batch: Int = 64, last: Bool = false) -> Bool {
            BatchScheduler.leavesGenerationForNextStep(streams: streams, generating: generating, promptsLeft: prompts,
                                                       batchSize: batch, leftLastStep: last)
        }
        #expect(leaves())
        #expect(leaves(prompts: [32, 32]))                  // exactly a batch
        #expect(!leaves(prompts: [32, 33]))                 // one prompt would not end
        #expect(!leaves(streams: 1))                        // one pool: rows mix in micro-batches
        #expect(!leaves(generating: 0))                     // nothing to leave
        #expect(!leaves(prompts: []))                       // no prompt: a generation step
        #expect(!leaves(prompts: [10, nil]))                // a medium ahead is decoded apart
        #expect(!leaves(last: true))                        // never twice in a row
    }
}
