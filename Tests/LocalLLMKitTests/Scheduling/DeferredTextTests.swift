import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// The order a GPU runs in: the text work of a step's tokens after the next step is queued
/// (``LocalModel/Configuration/defersTextWork``), here forced on the CPU, against the plain order.
@Suite("Text work while the next step computes", .serialized)
struct DeferredTextTests {
    static func load(defers: Bool) async throws -> LocalModel {
        var configuration = LocalModel.Configuration(contextLength: 512, parallelSequences: 2)
        configuration.defersTextWork = defers
        return try await TestModel.load(configuration)
    }

    /// The streamed chunks and the response of a completion.
    static func run(_ model: LocalModel, _ prompt: String, _ options: CompletionOptions) async throws
        -> (chunks: String, response: ModelResponse<String>) {
        let stream = model.streamCompletion(prompt, options: options)
        var chunks = ""
        for try await chunk in stream { chunks += chunk }
        return (chunks, try await stream.result)
    }

    @Test("the same texts, tokens and stop reasons, at the token limit and at a stop sequence")
    func sameOutput() async throws {
        let plain = try await Self.load(defers: false)
        let deferred = try await Self.load(defers: true)
        #expect(plain.configuration.defersTextWorkInEffect == false && deferred.configuration.defersTextWorkInEffect)
        for prompt in BatchingTests.prompts.prefix(4) {
            let limit = CompletionOptions.greedy(maximumResponseTokens: 20)
            let a = try await Self.run(plain, prompt, limit)
            let b = try await Self.run(deferred, prompt, limit)
            #expect(b.response.text == a.response.text && b.response.tokens == a.response.tokens, "\(prompt)")
            #expect(a.response.stopReason == .maximumTokens && b.response.stopReason == .maximumTokens)
            #expect(b.chunks == b.response.text)

            // A stop sequence from the middle of that text.
            let words = a.response.text.split(separator: " ")
            guard words.count >= 4 else { continue }
            var stopping = limit
            stopping.stopSequences = [String(words[words.count / 2])]
            let c = try await Self.run(plain, prompt, stopping)
            let d = try await Self.run(deferred, prompt, stopping)
            #expect(c.response.stopReason == .stopSequence && d.response.stopReason == .stopSequence, "\(prompt)")
            #expect(d.response.text == c.response.text && d.response.tokens == c.response.tokens)
            #expect(d.response.stopSequence == c.response.stopSequence)
            #expect(d.chunks == d.response.text && c.chunks == c.response.text)
        }
    }

    @Test("the token that completed a stop sequence was decoded once more, and its sequence's cache holds it")
    func stoppingTokenCached() async throws {
        var results: [Bool: (tokens: [Int32], cached: Int)] = [:]
        let prompt = BatchingTests.prompts[1]
        let words = try await TestModel.load(.init(contextLength: 512))
            .complete(prompt, options: .greedy(maximumResponseTokens: 20)).text.split(separator: " ")
        try #require(words.count >= 4)
        for defers in [false, true] {
            var configuration = LocalModel.Configuration(contextLength: 512, parallelSequences: 1)
            configuration.defersTextWork = defers
            let model = try await TestModel.load(configuration)
            var options = CompletionOptions.greedy(maximumResponseTokens: 20)
            options.stopSequences = [String(words[words.count / 2])]
            let response = try await model.complete(prompt, options: options)
            try #require(response.stopReason == .stopSequence, "\(response.text)")
            let continuation = try model.tokenize(prompt) + response.tokens + [1]
            results[defers] = (response.tokens, try await model.reusablePrefix(of: continuation))
        }
        let (plain, deferred) = (try #require(results[false]), try #require(results[true]))
        #expect(plain.tokens == deferred.tokens)
        let length = try await TestModel.vocabulary().tokenize(BatchingTests.prompts[1]).count + plain.tokens.count
        #expect(plain.cached == length - 1)         // every token but the last was decoded
        #expect(deferred.cached == length)           // the last one too
    }

    @Test("a cancelled request's text holds every token it reports, the one not handled yet too")
    func cancelledTextMatchesTokens() async throws {
        let model = try await Self.load(defers: true)
        let stream = model.streamCompletion(BatchingTests.prompts[1], options: .greedy(maximumResponseTokens: 200))
        var chunks = 0
        for try await _ in stream {
            chunks += 1
            if chunks == 5 { break }
        }
        let response = try await stream.result
        #expect(response.stopReason == .cancelled)
        #expect(!response.tokens.isEmpty)
        #expect(try model.detokenize(response.tokens) == response.text)
    }

    @Test("two requests at once, one ended by a stop sequence, the other to its limit")
    func mixedEnds() async throws {
        let model = try await Self.load(defers: true)
        var stopping = CompletionOptions.greedy(maximumResponseTokens: 16)
        stopping.stopSequences = [" "]
        async let first = model.complete(BatchingTests.prompts[0], options: stopping)
        async let second = model.complete(BatchingTests.prompts[2], options: .greedy(maximumResponseTokens: 16))
        let (a, b) = try await (first, second)
        #expect(a.stopReason == .stopSequence && !a.text.contains(" "), "\(a.text)")
        #expect(b.stopReason == .maximumTokens && b.tokens.count == 16)
        #expect(try model.detokenize(b.tokens) == b.text)
        #expect(await model.busySequenceCount == 0)

        // A prompt that arrives while another request generates: its prefill step comes after the
        // other's pending text; both still end as they should.
        let long = model.streamCompletion(BatchingTests.prompts[2], options: .greedy(maximumResponseTokens: 24))
        var chunks = 0
        var late: Task<ModelResponse<String>, any Error>?
        for try await _ in long {
            chunks += 1
            if chunks == 3 { late = Task { try await model.complete(BatchingTests.prompts[0], options: stopping) } }
        }
        let longResponse = try await long.result
        #expect(longResponse.stopReason == .maximumTokens && longResponse.tokens.count == 24)
        #expect(try model.detokenize(longResponse.tokens) == longResponse.text)
        let lateResponse = try await #require(late).value
        #expect(lateResponse.stopReason == .stopSequence && !lateResponse.text.contains(" "))
        #expect(await model.busySequenceCount == 0)
    }

    @Test("a conversation streams the same events in either order")
    func conversation() async throws {
        var events: [Bool: [Conversation.Event]] = [:]
        for defers in [false, true] {
            let conversation = try Conversation(model: try await Self.load(defers: defers), instructions: "Be brief.")
            var seen: [Conversation.Event] = []
            for try await event in conversation.streamResponse(to: "Name three rivers.",
                                                               options: .greedy(maximumResponseTokens: 24)) {
                if case .done = event { continue }   // its timings differ
                seen.append(event)
            }
            events[defers] = seen
        }
        #expect(events[true] == events[false])
        #expect(events[true]?.isEmpty == false)
    }
}
