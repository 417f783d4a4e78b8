import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// ``LocalModel/Configuration/adapters`` in the library: requests generating together on a model
/// with an adapter agree with each run alone, and bad scales are refused before loading.
@Suite("LoRA adapters in the library", .serialized)
struct AdapterTests {
    @Test("four requests decoded together on an adapted model agree with each alone, up to near ties; the adapter applies to all")
    func batchedRequestsAgree() async throws {
        let folder = try TemporaryDirectory()
        let adapter = folder.file("lora.gguf")
        try SyntheticFile.write("synth-lora-adapter", to: adapter)
        let configuration = LocalModel.Configuration(contextLength: 256, parallelSequences: 4, adapters: [.init(url: adapter, scale: 0.5)])
        let model = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: configuration)
        let plain = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(contextLength: 256))
        let prompts = ["The capital of France is", "Once upon a time", "def add(a, b):", "The three primary colors are"]
        let options = CompletionOptions(maximumResponseTokens: 16, sampling: .greedy)
        var alone: [[Int32]] = []
        for prompt in prompts { alone.append(try await model.complete(prompt, options: options).tokens) }
        let together = try await ConcurrentCompletions.tokens(model, prompts.map { ($0, options) })
        // Decoded four at a time, the matrix shapes change the logits' last bits, and the flat
        // distributions of a random adapter have near ties that this can flip (as without an
        // adapter, see BatchingTests): the first token of each must agree, and most tokens.
        var agreeing = 0
        for index in prompts.indices {
            #expect(together[index].first == alone[index].first, "\(prompts[index])")
            agreeing += zip(together[index], alone[index]).prefix { $0 == $1 }.count
            let base = try await plain.complete(prompts[index], options: options).tokens
            #expect(base.prefix(8) != alone[index].prefix(8), "the adapter changed nothing for \(prompts[index])")
        }
        #expect(agreeing * 2 > prompts.count * 16, "\(agreeing) of \(prompts.count * 16) tokens agree")
    }

    @Test("a scale that is not a finite number is refused, naming the adapter's place")
    func badScale() throws {
        let configuration = LocalModel.Configuration(adapters: [.init(url: URL(filePath: "/tmp/a.gguf"), scale: .nan)])
        #expect(throws: LocalModel.Error.invalidOption(name: "adapters[0].scale", reason: "nan is not a finite number")) {
            try configuration.validate()
        }
    }
}
