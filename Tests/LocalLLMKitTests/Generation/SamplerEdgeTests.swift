import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Sampler and limits at the edges")
struct SamplerEdgeTests {
    @Test("a grammar whose likely tokens are all banned by a logit bias falls back to the whole vocabulary")
    func bannedLikelyTokens() async throws {
        let model = try await TestModel.load()
        // The prompt makes every start of "yes"/"Yes" likely; all of them are banned, so only
        // "qqqq", far down the list, remains.
        var bias: [LocalModel.Token: Double] = [:]
        for prefix in ["y", "ye", "yes", "Y", "Ye", "Yes"] {
            let tokens = try model.tokenizer.tokenize(prefix, addSpecial: false, parseSpecial: false)
            if tokens.count == 1 { bias[tokens[0]] = -.infinity }
        }
        #expect(!bias.isEmpty)
        let result = try await model.complete("Q: Is the sky blue? A: yes\nQ: Is fire hot? A: yes\nQ: Is snow white? A:", format: .grammar(#"root ::= "yes" | "Yes" | "qqqq""#), options: .init(maximumResponseTokens: 8, sampling: .init(temperature: 0, logitBias: bias)))
        #expect(result.text == "qqqq")
    }

    @Test("sizes no context can have are typed errors, not traps")
    func oversizedContexts() async throws {
        let model = try await TestModel.load()
        await #expect(throws: LocalModel.Error.self) {
            try await model.measureThroughput(LocalModel.ThroughputTest(promptTokens: 1 << 30), repetitions: 1)
        }
        await #expect(throws: LocalModel.Error.self) {
            try await model.measureThroughput(LocalModel.ThroughputTest(promptTokens: 8), repetitions: 1, threads: 1 << 20)
        }
    }
}
