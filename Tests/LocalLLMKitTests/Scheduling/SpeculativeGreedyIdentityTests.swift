import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Greedy output with speculation equals plain greedy output of the same model loaded the plain
/// way (no speculation, default settings), token for token, through the chat template: the
/// review found an answer that differed from its first token (issue 32, point 13).
@Suite("Speculative decoding: greedy identity with plain decoding", .serialized)
struct SpeculativeGreedyIdentityTests {
    /// A Python module of about 70 lines, with repeated text, for editing requests.
    static let module: String = {
        var lines = ["import json", "import os", "", "", "class Inventory:", "    \"\"\"Items in stock, by name.\"\"\"", ""]
        lines += ["    def __init__(self, path):", "        self.path = path", "        self.items = {}", ""]
        for name in ["add", "remove", "count", "restock", "discard"] {
            lines += ["    def \(name)_item(self, name, quantity):",
                      "        \"\"\"\(name.capitalized) `quantity` of the item called `name`.\"\"\"",
                      "        current = self.items.get(name, 0)",
                      "        self.items[name] = current + quantity if '\(name)' in ('add', 'restock') else max(current - quantity, 0)",
                      "        self.save()", "        return self.items[name]", ""]
        }
        lines += ["    def save(self):", "        with open(self.path, 'w') as handle:", "            json.dump(self.items, handle)", "",
                  "    def load(self):", "        if os.path.exists(self.path):", "            with open(self.path) as handle:",
                  "                self.items = json.load(handle)"]
        return lines.joined(separator: "\n")
    }()

    /// Chat requests: long code edits (whose answers repeat the prompt, so lookup drafts a lot),
    /// extraction, quoting, and short questions.
    static let requests = [
        "Rename the method `count_item` to `quantity_of` in this code and return the whole file:\n\n```python\n\(module)\n```",
        "Add type hints to every method of this class and return the whole file:\n\n```python\n\(module)\n```",
        "In this code, `save` should write with an indent of 2. Return the whole corrected file:\n\n```python\n\(module)\n```",
        "Extract the name, the date and the total as JSON: Invoice 2291 for Ada Lovelace, dated 2024-03-05, total 1,250.00 EUR, due in 30 days.",
        "Quote this sentence exactly, then say how many words it has: \"The quick brown fox jumps over the lazy dog while the cat sleeps.\"",
        "Write a Python function that returns the n-th Fibonacci number.",
        "What is the capital of France?",
    ]

    /// The requests checked: every one at full size (`make soak`); otherwise one code edit, the
    /// extraction, the quote and a short question, which keep each kind of drafting.
    static let checkedRequests = ReferenceModel.fullSize ? requests : [requests[0], requests[3], requests[4], requests[6]]

    static let options = CompletionOptions.greedy(maximumResponseTokens: 160)

    static func load(_ speculation: LocalModel.Configuration.Speculation) async throws -> LocalModel {
        try await LocalModel.load(from: ReferenceModel.toolCallingURL(),
                                  configuration: .init(contextLength: 2048, speculation: speculation))
    }

    static func fixed(_ speculation: LocalModel.Configuration.Speculation) -> LocalModel.Configuration.Speculation {
        var fixed = speculation
        fixed.adaptsDraftLength = false
        return fixed
    }

    @Test("Daemon #13: greedy answers with lookup (planner and fixed) and a draft model equal plain answers: first 32 tokens and whole text")
    func greedyAnswersAreIdentical() async throws {
        let plain = try await Self.load(.none)
        let modes: [(String, LocalModel)] = [
            ("lookup", try await Self.load(.promptLookup)),
            ("fixed lookup", try await Self.load(Self.fixed(.promptLookup))),
            ("draft model", try await Self.load(Self.fixed(.draftModel(at: try ReferenceModel.speculativeDraftURL(), maximumDraft: 8)))),
        ]
        var drafted: [String: Int] = [:]
        for request in Self.checkedRequests {
            let reference = try await Conversation(model: plain).respond(to: [.user(request)], options: Self.options)
            #expect(reference.statistics.draftedTokens == 0)
            let referenceTokens = try plain.tokenizer.tokenize(reference.rawText, addSpecial: false, parseSpecial: true)
            for (name, model) in modes {
                let answer = try await Conversation(model: model).respond(to: [.user(request)], options: Self.options)
                let tokens = try model.tokenizer.tokenize(answer.rawText, addSpecial: false, parseSpecial: true)
                #expect(Array(tokens.prefix(32)) == Array(referenceTokens.prefix(32)),
                        "\(name): the first 32 tokens differ for \(request.prefix(60).debugDescription)")
                #expect(answer.rawText == reference.rawText, "\(name): the answer differs for \(request.prefix(60).debugDescription)")
                #expect(answer.stopReason == reference.stopReason)
                drafted[name, default: 0] += answer.statistics.draftedTokens
            }
        }
        // Every mode drafted: the comparison is not of plain decoding with itself.
        for (name, _) in modes { #expect(drafted[name, default: 0] > 0, "\(name) never drafted") }
    }
}
