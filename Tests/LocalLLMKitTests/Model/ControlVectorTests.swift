import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// ``LocalModel/Configuration/controlVectors`` in the library: requests generating together on a
/// steered model agree with each run alone, scale 0 is the model itself, and bad values are
/// refused before loading.
@Suite("Control vectors in the library", .serialized)
struct ControlVectorTests {
    @Test("four requests decoded together on a steered model agree with each alone; scale 0 is the plain model")
    func batchedRequestsAgree() async throws {
        let folder = try TemporaryDirectory()
        let vector = folder.file("vector.gguf")
        try SyntheticFile.write("synth-control-vector", to: vector, ["--magnitude", "0.5"])
        let steered = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 256, parallelSequences: 4, controlVectors: [.init(url: vector)], controlVectorLayers: 2...28))
        let unsteered = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 256, controlVectors: [.init(url: vector, scale: 0)]))
        let plain = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(contextLength: 256))
        let prompts = ["The capital of France is", "Once upon a time", "def add(a, b):", "The three primary colors are"]
        let options = CompletionOptions(maximumResponseTokens: 16, sampling: .greedy)
        var alone: [[Int32]] = []
        for prompt in prompts { alone.append(try await steered.complete(prompt, options: options).tokens) }
        let together = try await ConcurrentCompletions.tokens(steered, prompts.map { ($0, options) })
        // Decoded four at a time, the matrix shapes change the logits' last bits (see
        // BatchingTests): the first token of each must agree, and most tokens.
        var agreeing = 0, changed = 0
        for index in prompts.indices {
            #expect(together[index].first == alone[index].first, "\(prompts[index])")
            agreeing += zip(together[index], alone[index]).prefix { $0 == $1 }.count
            let base = try await plain.complete(prompts[index], options: options).tokens
            if base != alone[index] { changed += 1 }
            #expect(try await unsteered.complete(prompts[index], options: options).tokens == base, "scale 0 steered \(prompts[index])")
        }
        #expect(changed >= 3, "the control vector changed \(changed) of \(prompts.count) answers")
        #expect(agreeing * 2 > prompts.count * 16, "\(agreeing) of \(prompts.count * 16) tokens agree")
    }

    @Test("a scale that is not a finite number and a layer range from 0 are refused by validate()")
    func badConfiguration() throws {
        let url = URL(filePath: "/tmp/vector.gguf")
        #expect(throws: LocalModel.Error.invalidOption(name: "controlVectors[0].scale", reason: "inf is not a finite number")) {
            try LocalModel.Configuration(controlVectors: [.init(url: url, scale: .infinity)]).validate()
        }
        #expect(throws: LocalModel.Error.invalidOption(name: "controlVectorLayers", reason: "0...4 starts below layer 1")) {
            try LocalModel.Configuration(controlVectors: [.init(url: url)], controlVectorLayers: 0...4).validate()
        }
    }

    @Test("a vector for another width is a typed error from load, and the process goes on")
    func otherWidth() async throws {
        let folder = try TemporaryDirectory()
        let vector = folder.file("narrow.gguf")
        try SyntheticFile.write("synth-control-vector", to: vector, ["--width", "64"])
        await #expect(throws: LocalModel.Error.invalidControlVector(
            path: vector.path, reason: "direction.1 has shape [64], but the model's embedding width is 576")) {
            _ = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(controlVectors: [.init(url: vector)]))
        }
    }

    @Test("a model header that claims a huge width costs no memory: the vector's own tensors bound the sum")
    func forgedModelWidth() throws {
        let folder = try TemporaryDirectory()
        let vector = folder.file("vector.gguf"), forged = folder.file("forged.gguf")
        try SyntheticFile.write("synth-control-vector", to: vector)
        try GGUFRewriter.copy(ReferenceModel.chatURL(), to: forged, settingUInt32: "llama.embedding_length", to: 4_000_000_000)
        #expect(throws: LocalModel.Error.invalidControlVector(
            path: vector.path, reason: "direction.1 has shape [576], but the model's embedding width is 4000000000")) {
            try LocalModel.checkControlVector(.init(url: vector), forModelAt: forged)
        }
    }
}
