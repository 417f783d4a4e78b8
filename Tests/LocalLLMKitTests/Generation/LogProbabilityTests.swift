import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Log-probabilities of generated tokens")
struct LogProbabilityTests {
    @Test("one entry per generated token, equal to the softmax of the model's own logits at its place")
    func entriesMatchTheLogits() async throws {
        let model = try await TestModel.load(.init(contextLength: 512))
        let prompt = "The capital of France is"
        var options = CompletionOptions.greedy(maximumResponseTokens: 6)
        options.logProbabilityAlternatives = 4
        let response = try await model.complete(prompt, options: options)
        #expect(response.logProbabilities.map(\.chosen.token) == response.tokens)
        let promptTokens = try model.tokenize(prompt)
        for (index, entry) in response.logProbabilities.enumerated() {
            // Greedy: the chosen token is the likeliest alternative.
            #expect(entry.alternatives.count == 4 && entry.alternatives.first == entry.chosen, "\(entry)")
            #expect(zip(entry.alternatives, entry.alternatives.dropFirst()).allSatisfy { $0.logProbability >= $1.logProbability })
            #expect(entry.chosen.bytes == (try model.tokenizer.piece(entry.chosen.token)))
            // The same number from the logits after the same tokens, evaluated apart in one batch,
            // with a softmax in double precision (the entries' is in single precision, as
            // llama-server's, whose sum over 150k tokens is off by up to about 5e-4). The first
            // token's logits come from the same batch of the prompt either way; later ones were
            // generated one token a step, whose kernels round differently on this CPU
            // (llama_server_parity.py compares those with llama-server's to 1e-4).
            let logits = try await model.logits(after: promptTokens + response.tokens.prefix(index)).map(Double.init)
            let top = logits.max() ?? 0
            let expected = logits[Int(entry.chosen.token)] - top - log(logits.reduce(0) { $0 + exp($1 - top) })
            #expect(abs(entry.chosen.logProbability - expected) < (index == 0 ? 2e-3 : 0.2),
                    "token \(index): \(entry.chosen.logProbability) vs \(expected)")
        }
        // Sampled at a high temperature, the probabilities are still the model's own, and a token
        // that was not the likeliest is reported as such.
        options.sampling = .init(temperature: 1.5, seed: 3)
        options.maximumResponseTokens = 24
        let sampled = try await model.complete(prompt, options: options)
        #expect(sampled.logProbabilities.count == sampled.tokens.count)
        #expect(sampled.logProbabilities.allSatisfy { $0.chosen.logProbability <= 0 && $0.chosen.logProbability >= $0.alternatives[0].logProbability - 50 })
        let none = try await model.complete(prompt, options: .greedy(maximumResponseTokens: 3))
        #expect(none.logProbabilities.isEmpty)
    }

    @Test("a chat reply carries them too, and an out-of-range count is refused")
    func chatAndValidation() async throws {
        let model = try await TestModel.load(.init(contextLength: 512))
        let conversation = try Conversation(model: model)
        var options = CompletionOptions.greedy(maximumResponseTokens: 8)
        options.logProbabilityAlternatives = 0
        let reply = try await conversation.respond(to: "Say hello.", options: options)
        #expect(!reply.logProbabilities.isEmpty && reply.logProbabilities.allSatisfy(\.alternatives.isEmpty))
        #expect(reply.logProbabilities.count == reply.statistics.generatedTokens)
        options.logProbabilityAlternatives = 21
        await #expect(throws: LocalModel.Error.invalidOption(name: "logProbabilityAlternatives", reason: "21 is not in 0…20")) {
            _ = try await conversation.respond(to: "Say hello.", options: options)
        }
    }

    @Test("streamed, each token's entry comes as it is sampled, before its text; together, the reply's list")
    func streamedAsSampled() async throws {
        let model = try await TestModel.load(.init(contextLength: 512))
        var options = CompletionOptions.greedy(maximumResponseTokens: 12)
        options.logProbabilityAlternatives = 2
        var measured: [TokenLogProbability] = [], text = "", textBeforeFirstEntry = false
        let stream = try Conversation(model: model).streamResponse(to: "Name three colors.", options: options)
        for try await event in stream {
            switch event {
            case .logProbability(let entry): measured.append(entry)
            case .text(let delta):
                if measured.isEmpty { textBeforeFirstEntry = true }
                text += delta
                // The text so far is the measured tokens' text, or a prefix of it (a stop
                // sequence or an unfinished character can hold a token's text back).
                let bytes = measured.flatMap(\.chosen.bytes)
                #expect(bytes.starts(with: Array(text.utf8)), "\(text.debugDescription)")
            default: break
            }
        }
        let reply = try await stream.result
        #expect(!textBeforeFirstEntry)
        #expect(measured == reply.logProbabilities && measured.count == reply.statistics.generatedTokens)
        // Without the option, no such events.
        var plain = 0
        for try await event in try Conversation(model: model).streamResponse(to: "Hi.", options: .greedy(maximumResponseTokens: 4)) {
            if case .logProbability = event { plain += 1 }
        }
        #expect(plain == 0)
    }
}
