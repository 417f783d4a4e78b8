import Testing
@testable import LocalLLMKit

@Suite("Completion options")
struct CompletionOptionsTests {
    @Test("invalid values name the option", arguments: [
        (CompletionOptions(maximumTokens: 0), "maximumTokens"),
        (CompletionOptions(temperature: -1), "temperature"),
        (CompletionOptions(temperature: .nan), "temperature"),
        (CompletionOptions(temperature: 1e300), "temperature"),
        (CompletionOptions(logitBias: [5: 1e300]), "logitBias"),
        (CompletionOptions(topK: -3), "topK"),
        (CompletionOptions(topP: 0), "topP"),
        (CompletionOptions(topP: 1.5), "topP"),
        (CompletionOptions(minP: 2), "minP"),
        (CompletionOptions(repetitionPenalty: 0), "repetitionPenalty"),
        (CompletionOptions(presencePenalty: .infinity), "presencePenalty"),
        (CompletionOptions(frequencyPenalty: .nan), "frequencyPenalty"),
        (CompletionOptions(penaltyWindow: -2), "penaltyWindow"),
        (CompletionOptions(seed: .max), "seed"),
        (CompletionOptions(stopSequences: ["ok", ""]), "stopSequences"),
        (CompletionOptions(logitBias: [5: .nan]), "logitBias"),
    ])
    func invalid(options: CompletionOptions, name: String) {
        #expect {
            try options.validate()
        } throws: { error in
            guard case LLMKitError.invalidOption(let reported, _) = error else { return false }
            return reported == name
        }
    }

    @Test("valid values pass, including a banned token")
    func valid() throws {
        try CompletionOptions(maximumTokens: 1, temperature: 0, topK: 0, topP: 1, minP: 0, repetitionPenalty: 1.1,
                              penaltyWindow: -1, seed: 0, stopSequences: ["\n"], logitBias: [1: -.infinity]).validate()
    }

    @Test("explicit values override the model's recommendations, which fill the rest")
    func filling() {
        let recommended = CompletionOptions(temperature: 0.3, topK: 20, topP: 0.8)
        let merged = CompletionOptions(maximumTokens: 5, temperature: 1.0).filling(from: recommended)
        #expect(merged.temperature == 1.0)
        #expect(merged.topK == 20)
        #expect(merged.topP == 0.8)
        #expect(merged.minP == nil)
        #expect(merged.maximumTokens == 5)
    }
}
