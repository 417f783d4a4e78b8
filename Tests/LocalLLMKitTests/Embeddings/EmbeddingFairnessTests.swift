import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// A chat model's embeddings share its thread with generation: bounded units, turns, the queue
/// bound and cancellation, through the real libllama and SmolLM2. Order and counts are asserted,
/// never durations.
@Suite("Embeddings beside generation", .serialized)
struct EmbeddingFairnessTests {
    static let words = "river stone lantern orchard meadow copper whistle harbor velvet candle thunder maple".split(separator: " ")

    /// A text of `count` words (about one token each for SmolLM2).
    static func text(_ count: Int, seed: Int) -> String {
        (0..<count).map { String(words[(seed * 5 + $0 * 7) % words.count]) }.joined(separator: " ")
    }

    static func chatModel(queue: Int = 64) async throws -> LocalModel {
        try await LocalModel.load(from: ReferenceModel.chatURL(),
                                  configuration: .init(contextLength: 4096, parallelSequences: 2, maximumQueuedRequests: queue))
    }

    @Test("Daemon #2: a chat request finishes while 8 texts of 1,500 words are still being embedded")
    func chatOvertakesLongEmbeddings() async throws {
        let model = try await Self.chatModel()
        let texts = (0..<8).map { Self.text(1_500, seed: $0) }
        let order = Order()
        let embedding = Task {
            let result = try await model.embeddings(for: texts)
            await order.append("embeddings")
            return result
        }
        // The chat starts once the embedding has begun.
        while await model.embeddingLoad.units == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let reply = try await model.complete("Name a color:", options: .init(maximumResponseTokens: 16))
        await order.append("chat")
        let result = try await embedding.value
        #expect(await order.names == ["chat", "embeddings"])
        #expect(!reply.content.isEmpty)
        #expect(result.vectors.count == 8)
        // Each text was split over units of at most 512 tokens.
        #expect(result.tokenCounts.allSatisfy { $0 > 1_000 }, "\(result.tokenCounts)")
        #expect(result.decodeCount >= result.totalTokenCount / 512)
    }

    @Test("Daemon #2: cancelling stops within one unit, and the model keeps embedding and generating")
    func cancellationWithinOneUnit() async throws {
        let model = try await Self.chatModel()
        let texts = (0..<8).map { Self.text(1_500, seed: $0) }
        let task = Task { try await model.embeddings(for: texts) }
        while await model.embeddingLoad.units < 2 { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let unitsAtCancel = await model.embeddingLoad.units
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await model.embeddingLoad.units <= unitsAtCancel + 1)
        #expect(await model.embeddingLoad.running == 0)
        #expect(try await model.embedding(for: "still fine").count > 0)
        #expect(!(try await model.complete("Hello", options: .init(maximumResponseTokens: 4)).content.isEmpty))
    }

    @Test("Daemon #2: embedding requests take turns and count against the queue bound")
    func turnsAndTheQueueBound() async throws {
        let model = try await Self.chatModel(queue: 1)
        let texts = (0..<4).map { Self.text(1_500, seed: $0) }
        let first = Task { try await model.embeddings(for: texts) }
        while await model.embeddingLoad.running == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let second = Task { try await model.embeddings(for: ["waits its turn"]) }
        while await model.embeddingLoad.waiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await model.waitingRequestCount == 1)
        // The queue (1) is full: a third embedding, and a completion, are refused.
        await #expect(throws: LocalModel.Error.busy(queuedRequests: 1)) { try await model.embeddings(for: ["refused"]) }
        await #expect(throws: LocalModel.Error.busy(queuedRequests: 1)) {
            try await model.complete("refused too", options: .init(maximumResponseTokens: 2))
        }
        first.cancel()
        _ = try? await first.value
        #expect(try await second.value.vectors.count == 1)
        let load = await model.embeddingLoad
        #expect(load.running == 0 && load.waiting == 0)
    }
}

/// Names in the order they were appended.
private actor Order {
    private(set) var names: [String] = []
    func append(_ name: String) { names.append(name) }
}
