import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Multi-token prediction through the real libllama: the bootstrap's synthetic mimo2, whose one
/// next-token-prediction layer drafts for its own trunk (no model with such layers can be
/// downloaded here). Its random weights make some drafts right and some wrong; what the tests
/// prove is that the model's own greedy tokens come out either way.
@Suite("Multi-token prediction", .serialized)
struct MultiTokenPredictionTests {
    static let options = CompletionOptions.greedy(maximumResponseTokens: 40)

    /// The MTP model with `speculation`, weights in the file's layout either way. Its random
    /// weights (F16) give other logits for two rows than for one, so greedy exactness would allow
    /// no draft at all (``preservesGreedyOutput``, tested below): these tests check drafts of up
    /// to 3 tokens, whose greedy tokens the synthetic model's wide margins keep.
    static func load(_ speculation: LocalModel.Configuration.Speculation, sequences: Int = 1) async throws -> LocalModel {
        var speculation = speculation
        speculation.preservesGreedyOutput = false
        return try await LocalModel.load(from: ReferenceModel.multiTokenPredictionURL(),
                                         configuration: .init(contextLength: 256, parallelSequences: sequences,
                                                              speculation: speculation, repacksWeights: false))
    }

    static func inexact(_ speculation: LocalModel.Configuration.Speculation) -> LocalModel.Configuration.Speculation {
        var inexact = speculation
        inexact.preservesGreedyOutput = false
        return inexact
    }

    @Test("Daemon #13: where two rows already round differently (this synthetic model), a greedy request drafts nothing by default")
    func exactGreedyDraftsNothingWhereBatchesDiffer() async throws {
        let model = try await LocalModel.load(from: ReferenceModel.multiTokenPredictionURL(),
                                              configuration: .init(contextLength: 256, speculation: .multiTokenPrediction()))
        let plain = try await LocalModel.load(from: ReferenceModel.multiTokenPredictionURL(), configuration: .init(contextLength: 256))
        let prompt = "The quick brown fox"
        let result = try await model.complete(prompt, options: Self.options)
        #expect(result.statistics.draftedTokens == 0)
        #expect(result.tokens == (try await plain.complete(prompt, options: Self.options)).tokens)
        // A sampled request still drafts: its draws keep their distribution, not their tokens.
        let sampled = try await model.complete(prompt, options: .init(maximumResponseTokens: 40, sampling: .init(temperature: 0.7, seed: 3)))
        #expect(sampled.statistics.draftedTokens > 0)
    }

    @Test("the file's next-token-prediction layer is found from its header, and automatic speculation uses it")
    func detection() async throws {
        let file = try GGUFFile(modelAt: try ReferenceModel.multiTokenPredictionURL())
        #expect(file.architecture == "mimo2")
        #expect(file.multiTokenPredictionLayers == 1)
        #expect(try GGUFFile(modelAt: try ReferenceModel.chatURL()).multiTokenPredictionLayers == 0)
        let automatic = try await Self.load(.automatic)
        #expect(automatic.speculationInEffect == Self.inexact(.multiTokenPrediction()))
        #expect(automatic.speculationInEffect.description == "multi-token prediction (up to 3 tokens)")
        let fixed = try await Self.load(SpeculationTests.fixed(.automatic))
        #expect(fixed.speculationInEffect == Self.inexact(SpeculationTests.fixed(.multiTokenPrediction())))
        #expect(fixed.speculationInEffect.description == "multi-token prediction (up to 3 tokens, every token checked)")
        // A model without such layers: automatic means none, and asking for them is a typed error.
        let smol = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(speculation: .automatic))
        #expect(smol.speculationInEffect == .none)
        do {
            _ = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(speculation: .multiTokenPrediction()))
            Issue.record("multi-token prediction loaded for a model without prediction layers")
        } catch LocalModel.Error.speculationUnsupported(let reason) {
            #expect(reason.contains("next-token-prediction"), "\(reason)")
        }
    }

    @Test("greedy output is byte-identical with and without multi-token prediction, for 10 prompts")
    func greedyIdentical() async throws {
        let model = try await Self.load(SpeculationTests.fixed(.multiTokenPrediction(maximumDraft: 3)))
        let plain = try await Self.load(.none)
        var drafted = 0
        var accepted = 0
        for prompt in SpeculationTests.prompts {
            let reference = try await plain.complete(prompt, options: Self.options)
            #expect(reference.statistics.draftedTokens == 0)
            let result = try await model.complete(prompt, options: Self.options)
            #expect(result.tokens == reference.tokens, "MTP changed the output of \(prompt.debugDescription)")
            #expect(result.text == reference.text && result.stopReason == reference.stopReason)
            drafted += result.statistics.draftedTokens
            accepted += result.statistics.acceptedDraftTokens
        }
        print("multi-token prediction: \(accepted) of \(drafted) drafted tokens accepted")
        #expect(accepted > 0, "no draft was ever accepted")
        #expect(accepted < drafted, "no draft was ever rejected")
        // Most steps take more than one token: fewer decode steps than tokens.
        #expect(accepted * 4 > drafted, "only \(accepted) of \(drafted) accepted")
    }

    @Test("requests at once, a cached prefix and a copied one keep the model's own tokens")
    func sequencesAndCache() async throws {
        let plain = try await Self.load(.none)
        let model = try await Self.load(SpeculationTests.fixed(.multiTokenPrediction()), sequences: 3)
        let prompts = Array(SpeculationTests.prompts.prefix(3))
        let together = try await withThrowingTaskGroup(of: (Int, ModelResponse<String>).self) { group in
            for (index, prompt) in prompts.enumerated() {
                group.addTask { (index, try await model.complete(prompt, options: Self.options)) }
            }
            return try await group.reduce(into: [Int: ModelResponse<String>]()) { $0[$1.0] = $1.1 }
        }
        for (index, prompt) in prompts.enumerated() {
            let alone = try await plain.complete(prompt, options: Self.options)
            let batched = try #require(together[index])
            _ = try await BatchingTests.expectAgreement(batched.tokens, alone: alone.tokens, prompt: prompt, model: plain)
            #expect(batched.statistics.acceptedDraftTokens > 0)
            // Asked again: the prompt comes from the cache, and the prediction layer's cells with it.
            let again = try await model.complete(prompt, options: Self.options)
            #expect(again.statistics.cachedPromptTokens > 0)
            _ = try await BatchingTests.expectAgreement(again.tokens, alone: alone.tokens, prompt: prompt, model: plain)
        }
        // A prompt that starts like a cached one takes that prefix (copied into another sequence).
        let longer = prompts[0] + "    return a + b\n\n# And a third:\ndef"
        let extended = try await model.complete(longer, options: Self.options)
        #expect(extended.statistics.cachedPromptTokens > 0)
        #expect(extended.statistics.acceptedDraftTokens > 0)
        let reference = try await plain.complete(longer, options: Self.options)
        _ = try await BatchingTests.expectAgreement(extended.tokens, alone: reference.tokens, prompt: longer, model: plain)
    }

    @Test("a stop sequence inside an accepted draft stops where plain decoding stops; cancelling stops within a step")
    func stopsAndCancellation() async throws {
        let plain = try await Self.load(.none)
        let model = try await Self.load(SpeculationTests.fixed(.multiTokenPrediction()), sequences: 2)
        let prompt = SpeculationTests.prompts[6]
        let reference = try await plain.complete(prompt, options: Self.options)
        // A stop sequence made of the reference's own text, from its middle.
        let words = reference.text.unicodeScalars.count
        let stop = String(String.UnicodeScalarView(reference.text.unicodeScalars.dropFirst(words / 2).prefix(3)))
        var stopping = Self.options
        stopping.stopSequences = [stop]
        let a = try await plain.complete(prompt, options: stopping)
        let b = try await model.complete(prompt, options: stopping)
        #expect(a.stopReason == .stopSequence && b.stopReason == .stopSequence)
        #expect(b.text == a.text && b.tokens == a.tokens)
        #expect(b.statistics.acceptedDraftTokens > 0)
        let stream = model.streamCompletion(prompt, options: .greedy(maximumResponseTokens: 200))
        var pieces = 0
        for try await _ in stream {
            pieces += 1
            if pieces == 3 { break }
        }
        let cancelled = try await stream.result
        #expect(cancelled.stopReason == .cancelled)
        #expect(cancelled.tokens.count < 20, "\(cancelled.tokens.count) tokens after the cancel")
        let after = try await model.complete(prompt, options: Self.options)
        #expect(after.tokens == reference.tokens)
    }
}
