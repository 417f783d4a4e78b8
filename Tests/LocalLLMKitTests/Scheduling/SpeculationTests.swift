import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Speculative decoding through the real libllama: Qwen2.5-Coder-0.5B as the model, drafting by
/// prompt lookup or with the bootstrap's Q2_K requantization of the same model as draft model.
@Suite("Speculative decoding", .serialized)
struct SpeculationTests {
    /// Ten raw prompts: editing, extraction and quoting (whose answers repeat their input, so
    /// that prompt lookup drafts a lot), and plain continuations (whose drafts are few and often
    /// wrong).
    static let prompts = [
        "def add(a, b):\n    return a + b\n\n# The same function, renamed to plus:\ndef plus(a, b):\n",
        "Passage: The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun.\nThe passage, quoted exactly: \"",
        "{\"name\": \"Ada Lovelace\", \"born\": 1815, \"field\": \"mathematics\", \"city\": \"London\"}\nThe same record as YAML:\nname:",
        "fruits = ['apple', 'banana', 'cherry', 'date']\n# The same list in reverse order:\nfruits_reversed = [",
        "def merge(left, right):\n    result = []\n    while left and right:\n        result.append(left.pop(0) if left[0] <= right[0] else right.pop(0))\n    return result + left + right\n\n# The same function with `result` renamed to `merged`:\ndef merge(left, right):\n",
        "<ul>\n  <li>Home</li>\n  <li>About</li>\n  <li>Contact</li>\n</ul>\n<!-- The same list as an ordered list: -->\n<ol>\n",
        "The capital of France is",
        "Once upon a time, in a small village,",
        "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n\n# A Point3D class like Point, with z too:\nclass Point3D:\n",
        "SELECT name, email FROM users WHERE active = 1;\n-- The same query, also selecting the id:\nSELECT",
    ]
    static let options = CompletionOptions.greedy(maximumResponseTokens: 48)

    /// Qwen with `speculation`; without speculation, with its weights in the file's layout as
    /// speculation loads them (see ``LocalModel/Configuration/repacksWeights``).
    static func load(_ speculation: LocalModel.Configuration.Speculation, sequences: Int = 1) async throws -> LocalModel {
        try await LocalModel.load(from: ReferenceModel.toolCallingURL(),
                                  configuration: .init(contextLength: 512, parallelSequences: sequences, speculation: speculation,
                                                       repacksWeights: false))
    }

    /// `speculation` checking every drafted token, so that a test sees drafts whatever the
    /// planner would make of this machine's speed (see ``LocalModel/Configuration/Speculation/adaptsDraftLength``).
    static func fixed(_ speculation: LocalModel.Configuration.Speculation) -> LocalModel.Configuration.Speculation {
        var fixed = speculation
        fixed.adaptsDraftLength = false
        return fixed
    }

    static func draftURL() throws -> URL {
        try ReferenceModel.speculativeDraftURL()
    }

    /// Byte-identical where the CPU's logits of a batch equal those of one token: drafts of up
    /// to 6 tokens (7 rows), attention over fewer than 512 cells (these prompts and answers need 256).
    @Test("greedy output is byte-identical with prompt lookup (adaptive and fixed) and with a draft model, for 10 prompts")
    func greedyIdentical() async throws {
        let plain = try await Self.load(.none)
        let adaptive = try await Self.load(.promptLookup(maximumDraft: 6))
        let lookup = try await Self.load(Self.fixed(.promptLookup(maximumDraft: 6)))
        let drafted = try await Self.load(Self.fixed(.draftModel(at: try Self.draftURL(), maximumDraft: 4)))
        var totals: [String: (drafted: Int, accepted: Int)] = [:]
        for prompt in Self.prompts {
            let reference = try await plain.complete(prompt, options: Self.options)
            #expect(reference.statistics.draftedTokens == 0)
            for (name, model) in [("adaptive lookup", adaptive), ("lookup", lookup), ("draft", drafted)] {
                let result = try await model.complete(prompt, options: Self.options)
                #expect(result.tokens == reference.tokens, "\(name) changed the output of \(prompt.debugDescription)")
                #expect(result.text == reference.text)
                #expect(result.stopReason == reference.stopReason)
                #expect(result.statistics.generatedTokens == reference.statistics.generatedTokens)
                #expect(result.statistics.acceptedDraftTokens <= result.statistics.draftedTokens)
                totals[name, default: (0, 0)].drafted += result.statistics.draftedTokens
                totals[name, default: (0, 0)].accepted += result.statistics.acceptedDraftTokens
            }
        }
        // Both fixed kinds drafted, and both had drafts rejected: the verification's both paths ran.
        for name in ["lookup", "draft"] {
            let total = try #require(totals[name])
            #expect(total.accepted > 0, "\(name) never had a draft accepted")
            #expect(total.accepted < total.drafted, "\(name) never had a draft token rejected")
        }
        // The planner checked drafts where they were likely right, and no more wrong tokens than
        // checking every drafted token. Its choices weigh measured decode times, so on a busy
        // machine they vary a little from run to run: a tenth more is within that.
        let planned = try #require(totals["adaptive lookup"]), every = try #require(totals["lookup"])
        #expect(planned.accepted > 0)
        let (plannedWrong, everyWrong) = (planned.drafted - planned.accepted, every.drafted - every.accepted)
        #expect(plannedWrong * 10 <= everyWrong * 11, "\(planned) against \(every)")
    }

    @Test("a request with speculates false decodes one token per step on a speculating model, with the same tokens")
    func optingOut() async throws {
        let model = try await Self.load(Self.fixed(.promptLookup(maximumDraft: 6)))
        var options = Self.options
        options.speculates = false
        let plain = try await model.complete(Self.prompts[0], options: options)
        let speculated = try await model.complete(Self.prompts[0], options: Self.options)
        #expect(plain.statistics.draftedTokens == 0)
        #expect(speculated.statistics.acceptedDraftTokens > 0)
        #expect(plain.tokens == speculated.tokens)
    }

    @Test("four requests at once speculate in the same steps and agree with each one run alone")
    func batchedLookup() async throws {
        let plain = try await Self.load(.none)
        let model = try await Self.load(.promptLookup(maximumDraft: 8), sequences: 4)
        let prompts = Array(Self.prompts.prefix(4))
        let results = try await withThrowingTaskGroup(of: (Int, ModelResponse<String>).self) { group in
            for (index, prompt) in prompts.enumerated() {
                group.addTask { (index, try await model.complete(prompt, options: Self.options)) }
            }
            return try await group.reduce(into: [Int: ModelResponse<String>]()) { $0[$1.0] = $1.1 }
        }
        var drafted = 0
        for (index, prompt) in prompts.enumerated() {
            let alone = try await plain.complete(prompt, options: Self.options)
            let batched = try #require(results[index])
            // Four sequences in one batch round differently from one: agreement up to a near tie.
            _ = try await BatchingTests.expectAgreement(batched.tokens, alone: alone.tokens, prompt: prompt, model: plain)
            drafted += batched.statistics.draftedTokens
        }
        #expect(drafted > 0)
    }

    /// Requests queued behind three sequences start as others end, so a new prompt is evaluated
    /// in the same step as drafts of sequences with higher ids: the scheduler then puts the rows
    /// in the sequences' order (``BatchScheduler/orderedBySequence(_:)``), and each draft must
    /// still be checked against its own rows' logits.
    @Test("requests that start while others speculate agree with each run alone")
    func promptsBetweenDrafts() async throws {
        let plain = try await Self.load(.none)
        let model = try await Self.load(Self.fixed(.promptLookup(maximumDraft: 6)), sequences: 3)
        // Short continuations end early and free their sequence for the next request, while the
        // editing and quoting answers (which draft a lot) go on.
        let plan = [(6, 2), (1, 48), (4, 48), (6, 3), (6, 4), (6, 5), (6, 6), (1, 40), (6, 3), (5, 40), (6, 4), (0, 32)]
        let requests = plan.map { (prompt: Self.prompts[$0.0], options: CompletionOptions.greedy(maximumResponseTokens: $0.1)) }
        let results = try await withThrowingTaskGroup(of: (Int, ModelResponse<String>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, try await model.complete(request.prompt, options: request.options)) }
            }
            return try await group.reduce(into: [Int: ModelResponse<String>]()) { $0[$1.0] = $1.1 }
        }
        var drafted = 0
        for (index, request) in requests.enumerated() {
            let alone = try await plain.complete(request.prompt, options: request.options)
            let batched = try #require(results[index])
            _ = try await BatchingTests.expectAgreement(batched.tokens, alone: alone.tokens, prompt: request.prompt, model: plain)
            drafted += batched.statistics.draftedTokens
        }
        #expect(drafted > 0)
    }

    @Test("a stop sequence or the token limit inside an accepted draft ends where plain decoding ends")
    func stopsInsideDrafts() async throws {
        let plain = try await Self.load(.none)
        let lookup = try await Self.load(Self.fixed(.promptLookup(maximumDraft: 16)))
        let prompt = Self.prompts[1]
        // "lazy" lies inside the quoted passage, which lookup drafts in long runs.
        var stopping = Self.options
        stopping.stopSequences = ["lazy"]
        let reference = try await plain.complete(prompt, options: stopping)
        let result = try await lookup.complete(prompt, options: stopping)
        #expect(reference.stopReason == .stopSequence)
        #expect(result.stopReason == .stopSequence && result.stopSequence == "lazy")
        #expect(result.text == reference.text && result.tokens == reference.tokens)
        #expect(result.statistics.acceptedDraftTokens > 0)
        for limit in [1, 5, 11] {
            let short = CompletionOptions.greedy(maximumResponseTokens: limit)
            let a = try await plain.complete(prompt, options: short)
            let b = try await lookup.complete(prompt, options: short)
            #expect(b.tokens == a.tokens && b.tokens.count == limit && b.stopReason == .maximumTokens)
        }
    }

    @Test("structured output with speculation: the grammar applies to every drafted position")
    func structuredOutput() async throws {
        let plain = try await Self.load(.none)
        let lookup = try await Self.load(Self.fixed(.promptLookup))
        let schema = #"{"type": "object", "properties": {"name": {"type": "string"}, "born": {"type": "integer"}}, "required": ["name", "born"]}"#
        let prompt = Self.prompts[2] + " Ada Lovelace\n\nThe same record as JSON with only name and born:\n"
        let options = CompletionOptions.greedy(maximumResponseTokens: 40)
        let reference = try await plain.complete(prompt, format: .jsonSchema(schema), options: options)
        let result = try await lookup.complete(prompt, format: .jsonSchema(schema), options: options)
        #expect(result.tokens == reference.tokens)
        #expect(result.statistics.acceptedDraftTokens > 0, "the record was not drafted from the prompt")
        let object = try JSONSerialization.jsonObject(with: Data(result.text.utf8)) as? [String: Any]
        #expect(object?["born"] as? Int == 1815)
    }

    @Test("cancelling mid-draft stops within a step; the model and its other requests carry on")
    func cancellation() async throws {
        let model = try await Self.load(Self.fixed(.draftModel(at: try Self.draftURL(), maximumDraft: 4)), sequences: 2)
        let endless = CompletionOptions(maximumResponseTokens: 400, sampling: .init(temperature: 0))
        let reference = try await Self.load(.none).complete(Self.prompts[4], options: Self.options)
        let other = Task { try await model.complete(Self.prompts[4], options: Self.options) }
        let stream = model.streamCompletion(Self.prompts[0], options: endless)
        var received = 0
        for try await _ in stream {
            received += 1
            if received == 4 { break }
        }
        let result = try await stream.result
        #expect(result.stopReason == .cancelled)
        #expect(result.tokens.count < 40, "generation ran on for \(result.tokens.count) tokens after the cancel")
        _ = try await BatchingTests.expectAgreement(try await other.value.tokens, alone: reference.tokens,
                                                    prompt: Self.prompts[4], model: model)
        let after = try await model.complete(Self.prompts[4], options: Self.options)
        _ = try await BatchingTests.expectAgreement(after.tokens, alone: reference.tokens, prompt: Self.prompts[4], model: model)
    }

    @Test("a draft model with another vocabulary is refused with a typed error that says how they differ")
    func incompatibleDraft() async throws {
        let smol = try ReferenceModel.chatURL()
        do {
            _ = try await Self.load(.draftModel(at: smol))
            Issue.record("a SmolLM2 draft for Qwen loaded")
        } catch let LocalModel.Error.incompatibleDraftModel(path, reason) {
            #expect(path == smol.path)
            #expect(reason.contains("vocabulary") || reason.contains("token"), "\(reason)")
        }
        let missing = URL(filePath: "/nonexistent/draft.gguf")
        await #expect(throws: GGUFFile.Error.fileNotFound(path: missing.path)) {
            _ = try await Self.load(.draftModel(at: missing))
        }
    }

    @Test("speculation settings that cannot work are refused before loading")
    func invalidSettings() async throws {
        let cases: [(LocalModel.Configuration.Speculation, String)] = [
            (.promptLookup(maximumDraft: 0), "speculation.maximumDraft"),
            (.promptLookup(ngramLength: 0), "speculation.ngramLength"),
            (.draftModel(at: URL(string: "https://example.com/draft.gguf")!), "speculation.draftModel"),
            (.draftModel(at: URL(filePath: "/tmp/x.gguf"), maximumDraft: 1000), "speculation.maximumDraft"),
        ]
        for (speculation, name) in cases {
            #expect {
                try LocalModel.Configuration(speculation: speculation).validate()
            } throws: { error in
                guard case LocalModel.Error.invalidOption(let option, _) = error else { return false }
                return option == name
            }
        }
        #expect(LocalModel.Configuration.Speculation.automatic.isEnabled == false)
        let model = try await Self.load(.automatic)
        #expect(model.speculationInEffect == .none)
    }
}
