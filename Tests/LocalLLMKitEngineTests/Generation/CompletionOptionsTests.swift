import Testing
@testable import LocalLLMKitEngine

@Suite("Completion options")
struct CompletionOptionsTests {
    @Test("invalid values name the option", arguments: [
        (CompletionOptions(maximumResponseTokens: 0), "maximumResponseTokens"),
        (CompletionOptions(sampling: .init(temperature: -1)), "sampling.temperature"),
        (CompletionOptions(sampling: .init(temperature: .nan)), "sampling.temperature"),
        (CompletionOptions(sampling: .init(temperature: 1e300)), "sampling.temperature"),
        (CompletionOptions(sampling: .init(logitBias: [5: 1e300])), "sampling.logitBias"),
        (CompletionOptions(sampling: .init(topK: -3)), "sampling.topK"),
        (CompletionOptions(sampling: .init(topP: 0)), "sampling.topP"),
        (CompletionOptions(sampling: .init(topP: 1.5)), "sampling.topP"),
        (CompletionOptions(sampling: .init(minP: 2)), "sampling.minP"),
        (CompletionOptions(sampling: .init(repetitionPenalty: 0)), "sampling.repetitionPenalty"),
        (CompletionOptions(sampling: .init(presencePenalty: .infinity)), "sampling.presencePenalty"),
        (CompletionOptions(sampling: .init(frequencyPenalty: .nan)), "sampling.frequencyPenalty"),
        (CompletionOptions(sampling: .init(penaltyWindow: -2)), "sampling.penaltyWindow"),
        (CompletionOptions(sampling: .init(seed: .max)), "sampling.seed"),
        (CompletionOptions(stopSequences: ["ok", ""]), "stopSequences"),
        (CompletionOptions(sampling: .init(logitBias: [5: .nan])), "sampling.logitBias"),
        (CompletionOptions(sampling: .init(typicalP: 0)), "sampling.typicalP"),
        (CompletionOptions(sampling: .init(repetitionGuard: .init(multiplier: -1))), "sampling.repetitionGuard.multiplier"),
        (CompletionOptions(sampling: .init(repetitionGuard: .init(multiplier: 1, base: 0.5))), "sampling.repetitionGuard.base"),
        (CompletionOptions(sampling: .init(repetitionGuard: .init(multiplier: 1, allowedLength: -1))), "sampling.repetitionGuard.allowedLength"),
        (CompletionOptions(sampling: .init(repetitionGuard: .init(multiplier: 1, window: -2))), "sampling.repetitionGuard.window"),
        (CompletionOptions(sampling: .init(repetitionGuard: .init(multiplier: 1, sequenceBreakers: ["\n", ""]))),
         "sampling.repetitionGuard.sequenceBreakers"),
        (CompletionOptions(sampling: .init(repetitionGuard: .init(multiplier: 1, sequenceBreakers: Array(repeating: ".", count: 65)))),
         "sampling.repetitionGuard.sequenceBreakers"),
        (CompletionOptions(sampling: .init(topChoiceExclusion: .init(probability: 1.5))), "sampling.topChoiceExclusion.probability"),
        (CompletionOptions(sampling: .init(topChoiceExclusion: .init(probability: 0.5, threshold: .nan))), "sampling.topChoiceExclusion.threshold"),
        (CompletionOptions(sampling: .init(mirostat: .init(tau: -1))), "sampling.mirostat.tau"),
        (CompletionOptions(sampling: .init(mirostat: .init(eta: 0))), "sampling.mirostat.eta"),
    ])
    func invalid(options: CompletionOptions, name: String) {
        #expect {
            try options.validate()
        } throws: { error in
            guard case LocalModel.Error.invalidOption(let reported, _) = error else { return false }
            return reported == name
        }
    }

    @Test("valid values pass, including a banned token")
    func valid() throws {
        try CompletionOptions(maximumResponseTokens: 1, stopSequences: ["\n"], sampling: .init(temperature: 0, topK: 0, topP: 1, minP: 0, repetitionPenalty: 1.1, penaltyWindow: -1, seed: 0, logitBias: [1: -.infinity])).validate()
    }

    @Test("explicit values override the model's recommendations, which fill the rest")
    func filling() {
        let recommended = CompletionOptions.Sampling(temperature: 0.3, topK: 20, topP: 0.8)
        let merged = CompletionOptions.Sampling(temperature: 1.0).filling(from: recommended)
        #expect(merged.temperature == 1.0)
        #expect(merged.topK == 20)
        #expect(merged.topP == 0.8)
        #expect(merged.minP == nil)
        #expect(merged.seed == nil)
    }
}
