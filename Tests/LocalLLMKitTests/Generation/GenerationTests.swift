import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Generation through the real model")
struct GenerationTests {
    static let prompt = "Once upon a time"

    @Test("greedy decoding is deterministic and stops at the token limit")
    func greedy() async throws {
        let model = try await TestModel.load()
        let first = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 24))
        let second = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 24))
        #expect(first.text == second.text)
        #expect(first.tokens == second.tokens)
        #expect(first.tokens.count == 24)
        #expect(first.stopReason == .maximumTokens)
        #expect(try model.detokenize(first.tokens) == first.text)
    }

    @Test("the same seed gives the same sample; another seed another")
    func seeds() async throws {
        let model = try await TestModel.load()
        let options = CompletionOptions(maximumResponseTokens: 32, sampling: .init(temperature: 1.2, seed: 7))
        let a = try await model.complete(Self.prompt, options: options)
        let b = try await model.complete(Self.prompt, options: options)
        var other = options
        other.sampling.seed = 8
        let c = try await model.complete(Self.prompt, options: other)
        #expect(a.text == b.text)
        #expect(a.seed == 7)
        #expect(a.tokens != c.tokens)
    }

    @Test("a random seed is reported and reproduces the sample")
    func reportedSeed() async throws {
        let model = try await TestModel.load()
        let first = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 16, sampling: .init(temperature: 1.0)))
        let replay = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 16, sampling: .init(temperature: 1.0, seed: first.seed)))
        #expect(first.tokens == replay.tokens)
    }

    @Test("options reach the sampler: top-k 1 is greedy at any temperature")
    func topKOne() async throws {
        let model = try await TestModel.load()
        let greedy = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 16))
        let topK = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 16, sampling: .init(temperature: 1.5, topK: 1, seed: 3)))
        #expect(greedy.tokens == topK.tokens)
    }

    @Test("an end-of-generation token stops with endOfText")
    func endOfText() async throws {
        let model = try await TestModel.load()
        let eos = try model.tokenize("<eos>", addingBeginningOfSequence: false, parsingSpecialTokens: true)
        #expect(eos.count == 1 && model.isEndOfGeneration(eos[0]))
        let result = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 16, sampling: .init(temperature: 0, logitBias: [eos[0]: 1000])))
        #expect(result.stopReason == .endOfText)
        #expect(result.text.isEmpty)
        #expect(result.statistics.generatedTokens == 0)
    }

    @Test("a banned token is never sampled")
    func bannedToken() async throws {
        let model = try await TestModel.load()
        let greedy = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 8))
        let banned = greedy.tokens[0]
        let result = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 8, sampling: .init(temperature: 0, logitBias: [banned: -.infinity])))
        #expect(!result.tokens.contains(banned))
    }

    @Test("a stop sequence ends generation and is not part of the text")
    func stopSequence() async throws {
        let model = try await TestModel.load()
        let reference = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 32)).text
        let middle = reference.index(reference.startIndex, offsetBy: reference.count / 2)
        let stop = String(reference[middle...].prefix(5))
        let expected = String(reference[..<reference.range(of: stop)!.lowerBound])
        let stream = model.streamCompletion(Self.prompt, options: .init(maximumResponseTokens: 32, stopSequences: [stop], sampling: .greedy))
        var streamed = ""
        for try await chunk in stream { streamed += chunk }
        let result = try await stream.result
        #expect(result.stopReason == .stopSequence)
        #expect(result.stopSequence == stop)
        #expect(result.text == expected)
        #expect(streamed == expected)
    }

    @Test("model recommendations from general.sampling.* apply unless overridden")
    func ggufSamplingDefaults() async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("greedy-by-default.gguf")
        try GGUFRewriter.copy(TestModel.url(), to: copy, settingFloat: "general.sampling.temp", to: 0)
        let model = try await LocalModel.load(from: copy, configuration: .init(contextLength: 512))
        #expect(model.file.recommendedSampling.temperature == 0)
        let reference = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 24))
        let byDefault = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 24))
        let overridden = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 24, sampling: .init(temperature: 1.5, seed: 11)))
        #expect(byDefault.tokens == reference.tokens)
        #expect(overridden.tokens != reference.tokens)
        // The engine fills them for every entry point: a chat round too.
        let messages: [ChatMessage] = [.user("Name three colours.")]
        let fresh = Conversation.Configuration(reusesPromptCache: false)    // each prompt evaluated whole, alike
        let greedyChat = try await Conversation(model: model, configuration: fresh).respond(to: messages, options: .greedy(maximumResponseTokens: 16))
        let defaultChat = try await Conversation(model: model, configuration: fresh).respond(to: messages, options: .init(maximumResponseTokens: 16))
        #expect(defaultChat.text == greedyChat.text)
    }

    @Test("a recommendation no sampler can take is an invalid option, not a crash")
    func hostileSamplingDefaults() async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("negative-temperature.gguf")
        try GGUFRewriter.copy(TestModel.url(), to: copy, settingFloat: "general.sampling.top_p", to: -3)
        let model = try await LocalModel.load(from: copy, configuration: .init(contextLength: 512))
        await #expect(throws: LocalModel.Error.self) {
            _ = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 4))
        }
        // A request that sets the field itself is not held to the file's value.
        let answer = try await model.complete(Self.prompt, options: .init(maximumResponseTokens: 4, sampling: .init(topP: 0.9, seed: 1)))
        #expect(!answer.tokens.isEmpty)
    }

    @Test("a prompt longer than the batch size is evaluated in chunks, with the same result")
    func longPrompt() async throws {
        let prompt = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 30)
        let chunked = try await TestModel.load(.init(contextLength: 1024, batchSize: 64, microBatchSize: 64))
        let whole = try await TestModel.load(.init(contextLength: 1024))
        let a = try await chunked.complete(prompt, options: .greedy(maximumResponseTokens: 12))
        let b = try await whole.complete(prompt, options: .greedy(maximumResponseTokens: 12))
        #expect(a.statistics.promptTokens > 4 * 64)
        // Chunks of 64 and one batch of 300 accumulate differently on some CPUs: the outputs may
        // part only on a near tie.
        _ = try await BatchingTests.expectAgreement(a.tokens, alone: b.tokens, prompt: prompt, model: whole)
    }

    @Test("a prompt that cannot fit throws promptTooLong before any output")
    func promptTooLong() async throws {
        let model = try await TestModel.load(.init(contextLength: 64))
        let long = String(repeating: "word ", count: 100)
        let count = try model.tokenize(long).count
        var chunks = 0
        await #expect(throws: LocalModel.Error.promptTooLong(tokens: count, limit: 63)) {
            for try await _ in model.streamCompletion(long) { chunks += 1 }
        }
        #expect(chunks == 0)
        let medium = String(repeating: "word ", count: 50)
        let mediumCount = try model.tokenize(medium).count
        await #expect(throws: LocalModel.Error.promptTooLong(tokens: mediumCount, limit: 44)) {
            _ = try await model.complete(medium, options: .init(maximumResponseTokens: 20))
        }
        // The model still works afterwards.
        #expect(try await model.complete("Hi", options: .greedy(maximumResponseTokens: 4)).tokens.count == 4)
    }

    @Test("without a token limit, generation stops when the context is full")
    func contextFull() async throws {
        let model = try await TestModel.load(.init(contextLength: 48))
        let result = try await model.complete(Self.prompt, options: .init(sampling: .init(temperature: 0, logitBias: [1: -.infinity, 106: -.infinity])))
        #expect(result.stopReason == .maximumTokens)
        #expect(result.statistics.promptTokens + result.statistics.generatedTokens == 48)
    }

    @Test("bad requests give typed errors")
    func badRequests() async throws {
        let model = try await TestModel.load()
        await #expect(throws: LocalModel.Error.emptyPrompt) { _ = try await model.streamCompletion(tokens: []).result }
        await #expect(throws: LocalModel.Error.invalidToken(999_999, vocabularySize: 262_144)) {
            _ = try await model.streamCompletion(tokens: [2, 999_999]).result
        }
        await #expect(throws: LocalModel.Error.self) { _ = try await model.complete("x", options: .init(sampling: .init(topP: 7))) }
        await #expect(throws: LocalModel.Error.invalidToken(-1, vocabularySize: 262_144)) {
            _ = try await model.complete("x", options: .init(sampling: .init(logitBias: [-1: 1])))
        }
    }

    @Test("statistics are filled in")
    func statistics() async throws {
        let model = try await TestModel.load()
        let result = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 10))
        let stats = result.statistics
        #expect(stats.promptTokens == (try model.tokenize(Self.prompt)).count)
        #expect(stats.generatedTokens == 10)
        #expect(stats.promptTokensPerSecond > 0)
        #expect(stats.generationTokensPerSecond > 0)
        #expect(stats.timeToFirstToken > .zero)
        #expect(stats.timeToFirstToken >= stats.promptDuration)
        #expect(model.loadDuration > .zero)
    }
}
