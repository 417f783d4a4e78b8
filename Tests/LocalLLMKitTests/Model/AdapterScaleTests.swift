import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// ``CompletionOptions/adapterScales`` and ``LocalModel/setAdapterScales(_:)``: a request's own
/// scales give what a model loaded at those scales gives, requests of other scales take turns
/// without mixing, and cache computed at other scales is not reused.
@Suite("Adapter scales per request", .serialized)
struct AdapterScaleTests {
    @Test("a request's scales answer as a model loaded at them; five scales at once answer as alone")
    func requestScales() async throws {
        let folder = try TemporaryDirectory()
        let adapter = folder.file("lora.gguf")
        try SyntheticFile.write("synth-lora-adapter", to: adapter)
        // Cells of their own for each sequence: a step of one sequence decodes as it would alone.
        // Two models, so that no request takes part of its prompt from the cache of another run
        // (a prompt evaluated in part rounds differently).
        let configuration = LocalModel.Configuration(contextLength: 256, parallelSequences: 5, cacheLayout: .perSequence,
                                                     adapters: [.init(url: adapter)])
        let model = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: configuration)
        let twin = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: configuration)
        let half = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 256, adapters: [.init(url: adapter, scale: 0.5)]))
        let prompt = "The capital of France is"
        func options(_ scales: [Float]?) -> CompletionOptions {
            CompletionOptions(maximumResponseTokens: 16, sampling: .greedy, adapterScales: scales)
        }
        let loadedAtHalf = try await half.complete(prompt, options: options(nil)).tokens
        // The same prompt at other scales: none reuses the cache of another.
        let scales: [[Float]?] = [nil, [0], [0.75], [0.5], [2]]
        var alone: [[Int32]] = []
        for scale in scales { alone.append(try await model.complete(prompt, options: options(scale)).tokens) }
        #expect(alone[3] == loadedAtHalf)
        #expect(Set(alone).count == scales.count, "two scales answered alike: \(alone)")
        let together = try await ConcurrentCompletions.tokens(twin, scales.map { (prompt, options($0)) })
        #expect(together == alone)
    }

    @Test("setAdapterScales changes what requests without scales use; wrong counts and NaN are refused")
    func modelScales() async throws {
        let folder = try TemporaryDirectory()
        let adapter = folder.file("lora.gguf")
        try SyntheticFile.write("synth-lora-adapter", to: adapter)
        let model = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 256, adapters: [.init(url: adapter, scale: 0.5)]))
        let options = CompletionOptions(maximumResponseTokens: 12, sampling: .greedy)
        #expect(await model.adapterScales == [0.5])
        let atHalf = try await model.complete("Once upon a time", options: options).tokens
        try await model.setAdapterScales([0])
        #expect(await model.adapterScales == [0])
        let off = try await model.complete("Once upon a time", options: options).tokens
        var explicit = options
        explicit.adapterScales = [0.5]
        #expect(off != atHalf)
        #expect(try await model.complete("Once upon a time", options: explicit).tokens == atHalf)
        await #expect(throws: LocalModel.Error.invalidOption(name: "adapterScales", reason: "it has 2 scales, but the model has 1 adapters")) {
            try await model.setAdapterScales([1, 1])
        }
        await #expect(throws: LocalModel.Error.invalidOption(name: "adapterScales[0]", reason: "nan is not a finite number")) {
            try await model.setAdapterScales([.nan])
        }
        var twoScales = options
        twoScales.adapterScales = [1, 0]
        await #expect(throws: LocalModel.Error.invalidOption(name: "adapterScales", reason: "it has 2 scales, but the model has 1 adapters")) {
            _ = try await model.complete("Hi", options: twoScales)
        }
        #expect(throws: LocalModel.Error.invalidOption(name: "adapterScales[0]", reason: "inf is not a finite number")) {
            try CompletionOptions(adapterScales: [.infinity]).validate()
        }
    }
}
