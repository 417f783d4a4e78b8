import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Both KV cache layouts through the real libllama: cells of each sequence's own (a prefix from
/// another sequence is copied with its whole stream, then cut back) and one unified pool (the
/// prefix's cells are shared).
@Suite("KV cache layouts")
struct CacheLayoutTests {
    typealias Layout = LocalModel.Configuration.CacheLayout

    static let shared = "The history of the printing press begins in the fifteenth century, when movable type "
        + "changed how books were made and sold across Europe, from Mainz to Venice. "
    static let first = shared + "In one sentence, who built the first press?"
    static let second = shared + "Name one city where printing spread early."
    static let options = CompletionOptions.greedy(maximumResponseTokens: 16)

    static func load(_ layout: Layout, sequences: Int = 2) async throws -> LocalModel {
        try await TestModel.load(.init(contextLength: 256, parallelSequences: sequences, cacheLayout: layout))
    }

    /// How many leading tokens the two prompts share.
    static func commonPrefix(_ model: LocalModel) throws -> Int {
        zip(try model.tokenize(first), try model.tokenize(second)).prefix { $0 == $1 }.count
    }

    @Test("a prefix taken from another sequence's cache continues as if evaluated anew; that sequence keeps its cache",
          arguments: Layout.allCases)
    func prefixFromAnotherSequence(layout: Layout) async throws {
        let alone = try await Self.load(layout, sequences: 1).complete(Self.second, options: Self.options)
        let model = try await Self.load(layout)
        let common = try Self.commonPrefix(model)
        #expect(common > 20)
        let a = try await model.complete(Self.first, options: Self.options)
        #expect(a.statistics.cachedPromptTokens == 0)
        // The second request goes to the empty sequence and takes the shared words from the first's.
        let b = try await model.complete(Self.second, options: Self.options)
        #expect(b.statistics.cachedPromptTokens == common, "\(layout): \(b.statistics.cachedPromptTokens) of \(common) shared tokens reused")
        #expect(b.statistics.evaluatedPromptTokens == b.statistics.promptTokens - common)
        _ = try await BatchingTests.expectAgreement(b.tokens, alone: alone.tokens, prompt: Self.second, model: model)
        // The first sequence still holds its prompt and answer: asking again evaluates one token.
        let again = try await model.complete(Self.first, options: Self.options)
        #expect(again.statistics.evaluatedPromptTokens == 1, "\(layout): \(again.statistics.evaluatedPromptTokens) evaluated again")
        _ = try await BatchingTests.expectAgreement(again.tokens, alone: a.tokens, prompt: Self.first, model: model)
    }

    @Test("a prefix taken from a sequence that is generating leaves both answers intact", arguments: Layout.allCases)
    func prefixFromBusySequence(layout: Layout) async throws {
        let long = CompletionOptions.greedy(maximumResponseTokens: 48)
        let single = try await Self.load(layout, sequences: 1)
        let firstAlone = try await single.complete(Self.first, options: long)
        let secondAlone = try await Self.load(layout, sequences: 1).complete(Self.second, options: Self.options)
        let model = try await Self.load(layout)
        let stream = model.streamCompletion(Self.first, options: long)
        var pieces = 0
        var second: Task<ModelResponse<String>, any Error>?
        for try await _ in stream {
            pieces += 1
            if pieces == 3 {
                second = Task { try await model.complete(Self.second, options: Self.options) }
            }
        }
        let a = try await stream.result
        let b = try #require(try await second?.value)
        let common = try Self.commonPrefix(model)
        #expect(b.statistics.cachedPromptTokens >= common, "\(layout): \(b.statistics.cachedPromptTokens) of \(common) reused")
        _ = try await BatchingTests.expectAgreement(a.tokens, alone: firstAlone.tokens, prompt: Self.first, model: model)
        _ = try await BatchingTests.expectAgreement(b.tokens, alone: secondAlone.tokens, prompt: Self.second, model: model)
    }

    @Test("the layout reaches llama.cpp: one pool of every cell, or a stream of its own for each sequence")
    func layoutReachesLlama() async throws {
        for layout in Layout.allCases {
            let model = try await Self.load(layout, sequences: 3)
            #expect(try await model.cacheCellsPerSequence() == (layout == .unified ? 768 : 256))
        }
        #expect(Layout(rawValue: "per-sequence") == .perSequence && Layout.unified.description == "unified")
        // Without a choice: cells per sequence without GPU layers (this machine has no GPU).
        #expect(LocalModel.Configuration(gpuLayers: 0).cacheLayoutInEffect == .perSequence)
        #expect(LocalModel.Configuration(gpuLayers: 0, cacheLayout: .unified).cacheLayoutInEffect == .unified)
        if !LocalModel.backendNames.contains(where: { $0 != "CPU" }) {
            #expect(LocalModel.Configuration().cacheLayoutInEffect == .perSequence)
        }
    }
}
