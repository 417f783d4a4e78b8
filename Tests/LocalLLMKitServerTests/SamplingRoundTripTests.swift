import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// `RemoteModel` against `ModelServer` with every generation field of the wire table set: the
/// same text as the same request run locally on the same model. For each field, the local text
/// without it differs, so a field that either side drops fails the test.
@Suite(.serialized) struct SamplingRoundTripTests {
    /// One group of settings that act together, each under its wire name.
    private struct Group {
        var prompt: String
        /// Set in every run, dropped in none (another group checks them).
        var base: @Sendable (inout CompletionOptions) -> Void = { _ in }
        var settings: [(String, @Sendable (inout CompletionOptions) -> Void)]

        func options(without dropped: String? = nil) -> CompletionOptions {
            var options = CompletionOptions(maximumResponseTokens: 20, sampling: .init(temperature: 1.0, seed: 7))
            base(&options)
            for (name, set) in settings where name != dropped { set(&options) }
            return options
        }
    }

    private static let story = "Write a short poem about the sea."
    private static let pattern = "Repeat this line five times: \"a: b, a: b, a: b\""

    private static let groups: [Group] = [
        Group(prompt: story, settings: [
            ("temperature", { $0.sampling.temperature = 1.6 }),
            ("top_k", { $0.sampling.topK = 6 }),
            ("typical_p", { $0.sampling.typicalP = 0.6 }),
        ]),
        Group(prompt: story, settings: [("top_p", { $0.sampling.topP = 0.5 })]),
        Group(prompt: story, settings: [("min_p", { $0.sampling.minP = 0.3 })]),
        Group(prompt: pattern, settings: [("presence_penalty", { $0.sampling.presencePenalty = 2 })]),
        Group(prompt: pattern, settings: [("frequency_penalty", { $0.sampling.frequencyPenalty = 2 })]),
        Group(prompt: pattern, settings: [
            ("repeat_penalty", { $0.sampling.repetitionPenalty = 1.5 }),
            ("repeat_last_n", { $0.sampling.penaltyWindow = 4 }),
        ]),
        Group(prompt: pattern, settings: [
            ("dry_multiplier", { $0.sampling.repetitionGuard = .init(multiplier: 0.5, base: 1.75, allowedLength: 2, window: -1) }),
            ("dry_base", { $0.sampling.repetitionGuard?.base = 4 }),
            ("dry_allowed_length", { $0.sampling.repetitionGuard?.allowedLength = 1 }),
            ("dry_penalty_last_n", { $0.sampling.repetitionGuard?.window = 12 }),
        ]),
        // Commas break every repeat of this pattern: the guard then lets it repeat.
        Group(prompt: pattern, base: { $0.sampling.repetitionGuard = .init(multiplier: 0.5, base: 4, allowedLength: 1, window: 12) }, settings: [
            ("dry_sequence_breakers", { $0.sampling.repetitionGuard?.sequenceBreakers = [","] }),
        ]),
        Group(prompt: story, settings: [
            ("xtc_probability", { $0.sampling.topChoiceExclusion = .init(probability: 1, threshold: 0.1) }),
            ("xtc_threshold", { $0.sampling.topChoiceExclusion?.threshold = 0.02 }),
        ]),
        Group(prompt: story, settings: [
            ("mirostat", { $0.sampling.mirostat = .init(version: .v1) }),
            ("mirostat_tau", { $0.sampling.mirostat?.tau = 1.5 }),
            ("mirostat_eta", { $0.sampling.mirostat?.eta = 0.9 }),
        ]),
    ]

    @Test func everyWireFieldReachesTheServersSampler() async throws {
        // Every field of the table is covered (max_tokens and seed by every group: a dropped
        // length or seed changes every text).
        let covered = Set(Self.groups.flatMap { $0.settings.map(\.0) } + ["max_tokens", "seed"])
        #expect(covered == Set(SamplingWireField.all.map(\.name)))

        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let remote = try RemoteModel(baseURL: server.baseURL, model: "smollm")
        for group in Self.groups {
            // The prompt's cache is filled first, so that every later run reuses it alike.
            _ = try await Conversation(model: model).respond(to: group.prompt, options: .init(maximumResponseTokens: 1))
            let local = try await Conversation(model: model).respond(to: group.prompt, options: group.options())
            let served = try await RemoteConversation(model: remote).respond(to: group.prompt, options: group.options())
            #expect(served.text == local.text, "\(group.settings.map(\.0))")
            #expect(served.stopReason == .maximumTokens && local.stopReason == .maximumTokens)
            for (name, _) in group.settings {
                let without = try await Conversation(model: model).respond(to: group.prompt, options: group.options(without: name))
                #expect(without.text != local.text, "\(name) does not change this text, so dropping it would go unnoticed")
            }
        }
        await server.stop()
    }

    @Test func aGrammarAndAThinkingBudgetAreRead() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let remote = try RemoteModel(baseURL: server.baseURL, model: "smollm")
        let grammar = #"root ::= ("yes" | "no") "!""#
        let served = try await RemoteConversation(model: remote)
            .respond(to: "Is the sea salty?", format: .grammar(grammar), options: .init(maximumResponseTokens: 8, sampling: .greedy))
        #expect(served.text == "yes!" || served.text == "no!", "\(served.text)")
        await server.stop()
    }
}
