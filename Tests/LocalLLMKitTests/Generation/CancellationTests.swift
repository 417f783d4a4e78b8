import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Cancellation and concurrent requests")
struct CancellationTests {
    static let prompt = "Once upon a time"
    /// Enough tokens that only cancellation can end the request early.
    static let endless = CompletionOptions(maximumResponseTokens: 900, sampling: .init(temperature: 0, logitBias: [1: -.infinity, 106: -.infinity]))

    @Test("breaking out of the loop stops generation within a decode step; the model works at once")
    func breakOut() async throws {
        let model = try await TestModel.load()
        let reference = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 12))
        let stream = model.streamCompletion(Self.prompt, options: Self.endless)
        var received = 0
        for try await _ in stream {
            received += 1
            if received == 3 { break }
        }
        let result = try await stream.result
        #expect(result.stopReason == .cancelled)
        #expect(result.tokens.count < 60, "generation ran on for \(result.tokens.count) tokens after the cancel")
        #expect(result.text.hasPrefix(String(reference.text.prefix(5))))
        let after = try await model.complete(Self.prompt, options: .greedy(maximumResponseTokens: 12))
        #expect(after.tokens == reference.tokens)
    }

    @Test("cancelling the consuming task cancels generation")
    func cancelTask() async throws {
        let model = try await TestModel.load()
        let stream = model.streamCompletion(Self.prompt, options: Self.endless)
        let consumer = Task {
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(300))
        consumer.cancel()
        _ = try? await consumer.value
        let result = try await stream.result
        #expect(result.stopReason == .cancelled)
        #expect(result.tokens.count < 900)
    }

    @Test("cancelling a task that only awaits the result cancels generation")
    func cancelResultAwait() async throws {
        let model = try await TestModel.load()
        let stream = model.streamCompletion(Self.prompt, options: Self.endless)
        let waiter = Task { try await stream.result }
        try await Task.sleep(for: .milliseconds(300))
        waiter.cancel()
        let result = try await waiter.value
        #expect(result.stopReason == .cancelled)
        #expect(result.tokens.count < 900)
    }

    @Test("cancelling a long prompt evaluation aborts llama_decode")
    func cancelDuringPrompt() async throws {
        let model = try await TestModel.load(.init(contextLength: 4096))
        let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 300)
        let stream = model.streamCompletion(long, options: .greedy(maximumResponseTokens: 4))
        try await Task.sleep(for: .milliseconds(50))
        stream.cancel()
        let result = try await stream.result
        #expect(result.stopReason == .cancelled)
        #expect(result.tokens.isEmpty)
        #expect(try await model.complete("Hi", options: .greedy(maximumResponseTokens: 3)).tokens.count == 3)
    }

    @Test("concurrent requests are served one at a time and never interleave")
    func concurrentRequests() async throws {
        let model = try await TestModel.load()
        let prompts = ["Once upon a time", "The capital of France is", "def fibonacci(n):"]
        var references: [String: [LocalModel.Token]] = [:]
        for prompt in prompts {
            references[prompt] = try await model.complete(prompt, options: .greedy(maximumResponseTokens: 20)).tokens
        }
        let results = try await withThrowingTaskGroup(of: (String, [LocalModel.Token]).self) { group in
            for prompt in prompts + prompts {
                group.addTask { (prompt, try await model.complete(prompt, options: .greedy(maximumResponseTokens: 20)).tokens) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 6)
        for (prompt, tokens) in results {
            #expect(tokens == references[prompt], "request for '\(prompt)' was disturbed")
        }
    }
}
