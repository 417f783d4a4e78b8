import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Sampling under an output grammar takes the bridge's shortcuts (the chain over the likeliest
/// candidates, the allowed tokens looked for likeliest first, tokens whose first byte the grammar
/// cannot take never decoded); each must draw what the chain over the whole vocabulary draws.
@Suite("Sampling under a grammar")
struct GrammarSamplingTests {
    /// Fixed keys that no model writes unprompted (so the likeliest tokens often break them, and
    /// the bridge looks past its 1,024 likeliest candidates), digits, a string of any characters
    /// but a quote, and a choice of words.
    static let grammars = [
        #"root ::= "{\"customer_account_identifier\": " [0-9]{1,6} ", \"primary_shipping_address_postal_code\": \"" [^"\\]{0,24} "\"}""#,
        #"root ::= ("yes" | "no" | "maybe") " because " [a-z ]{1,40} "."  "#,
    ]

    @Test("the likeliest candidates, and only tokens the grammar can start, draw what the whole vocabulary draws")
    func shortcutsDrawTheSame() async throws {
        let model = try await TestModel.load(.init(contextLength: 512))
        let tokens = try model.tokenize("The garden in spring")
        for grammar in Self.grammars {
            for sampling in SamplingCases.all {
                for seed in 0..<2 {
                    var options = CompletionOptions(maximumResponseTokens: 40, sampling: sampling)
                    options.sampling.seed = (sampling.seed ?? 0) * 100 + UInt32(seed)
                    options.sampling = options.sampling.filling(from: .init(recommendedBy: model.file.recommendedSampling))
                    var plan = GenerationPlan(promptTokens: tokens, options: options, constraint: .grammar(grammar))
                    let fast = try await model.generate(GenerationRequest(plan: plan, contextLimit: 512, cancellation: .init()) { _ in })
                    plan.samplesExhaustively = true
                    let full = try await model.generate(GenerationRequest(plan: plan, contextLimit: 512, cancellation: .init()) { _ in })
                    #expect(fast.tokens == full.tokens, "\(grammar.prefix(20)), \(sampling), seed \(options.sampling.seed ?? 0)")
                    #expect(!fast.tokens.isEmpty)
                }
            }
        }
        // A grammar no longer keeps a sampler from drawing from bare logits, nor a greedy one
        // from the arg-max.
        let greedy = try Sampler(model: model.handle, sampling: CompletionOptions.Sampling.greedy.filling(from: .init(recommendedBy: model.file.recommendedSampling)),
                                 constraint: .grammar(Self.grammars[1]))
        #expect(greedy.isGreedy && greedy.samplesFromLogits)
    }
}
