import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Grammar drafts (the text an output grammar allows next, decoded in one step) give exactly
/// the answer of one token a step (`speculates: false`), greedy and with seeds, for the
/// benchmark's schemas and the kinds the structured-output suite covers, through the real
/// model. Prompt and answer stay within 256 cells, where the CPU computes a batch's rows as it
/// computes one token (docs/PERFORMANCE.md, "Bit-identical logits").
@Suite("Grammar drafts: the same answers as one token a step", .serialized)
struct GrammarDraftIdentityTests {
    static let benchSchemas = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "../../../bench/schemas").standardized

    static let schemas: [(name: String, schema: String)] = [
        ("enum", #"{"type": "object", "properties": {"status_of_the_order": {"enum": ["awaiting_payment", "shipped_to_customer"]}}, "required": ["status_of_the_order"], "additionalProperties": false}"#),
        ("array of objects", #"{"type": "array", "items": {"type": "object", "properties": {"first_name": {"type": "string", "maxLength": 12}, "age_in_years": {"type": "integer", "minimum": 0, "maximum": 120}}, "required": ["first_name", "age_in_years"], "additionalProperties": false}, "maxItems": 3}"#),
        ("format and anyOf", #"{"type": "object", "properties": {"date_of_issue": {"type": "string", "format": "date"}, "amount_or_note": {"anyOf": [{"type": "number"}, {"type": "string", "maxLength": 20}]}}, "required": ["date_of_issue", "amount_or_note"], "additionalProperties": false}"#),
    ]

    static func allSchemas() throws -> [(name: String, schema: String)] {
        try ["review", "long_keys"].map { ($0, try String(contentsOf: benchSchemas.appending(path: "\($0).json"), encoding: .utf8)) }
            + schemas
    }

    @Test("Greedy and seeded answers with grammar drafts equal those of one token a step, for every schema")
    func identicalAnswers() async throws {
        // Every draft checked whole (no planner): which drafts a planner checks depends on timings.
        var speculation = LocalModel.Configuration.Speculation.none
        speculation.adaptsDraftLength = false
        let model = try await TestModel.load(.init(contextLength: 1024, speculation: speculation))
        var drafted = 0, forced = 0
        for (name, schema) in try Self.allSchemas() {
            for sampling in [CompletionOptions.Sampling.greedy, .init(temperature: 1, seed: 7), .init(temperature: 0.7, seed: 11)] {
                var options = CompletionOptions(maximumResponseTokens: 120, sampling: sampling)
                let drafting = try await model.complete("A JSON document:\n", format: .jsonSchema(schema), options: options)
                options.speculates = false
                let stepwise = try await model.complete("A JSON document:\n", format: .jsonSchema(schema), options: options)
                #expect(drafting.text == stepwise.text, "\(name), \(sampling): the answers differ")
                #expect(drafting.stopReason == stepwise.stopReason)
                #expect(drafting.statistics.generatedTokens == stepwise.statistics.generatedTokens)
                #expect(stepwise.statistics.grammarDraftedTokens == 0, "one token a step drafts nothing")
                #expect(drafting.statistics.forcedTokens <= drafting.statistics.grammarDraftedTokens)
                drafted += drafting.statistics.grammarDraftedTokens
                forced += drafting.statistics.forcedTokens
            }
        }
        // The comparison is not of stepwise decoding with itself: drafts were checked, and kept.
        #expect(drafted > 0)
        #expect(forced > 0)
    }
}
