import LocalLLMKitTestSupport
import Testing
@testable import LocalLLMKitEngine

/// The text a sampler's output grammar allows next (``Sampler/grammarDraft(maximumCharacters:)``),
/// through llama.cpp's grammar and the reference model's vocabulary.
@Suite("Grammar drafts: the text a grammar allows next")
struct GrammarDraftTests {
    static func sampler(_ grammar: String) async throws -> (Sampler, LocalModel) {
        let model = try await TestModel.grammarVocabulary()
        return (try Sampler(model: model.handle, sampling: .greedy, constraint: .grammar(grammar)), model)
    }

    /// Accepts `text`'s tokens, as generation would.
    static func accept(_ text: String, in sampler: Sampler, model: LocalModel) throws {
        for token in try model.tokenizer.tokenize(text, addSpecial: false, parseSpecial: false) {
            try sampler.accept(token)
        }
    }

    @Test("Fixed text is drafted up to where the grammar leaves a choice, and nothing inside it")
    func fixedText() async throws {
        let (sampler, model) = try await Self.sampler(#"root ::= "{\"name\": \"" [a-z]+ "\", \"done\": true}""#)
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == #"{"name": ""#)
        // Twice: drafting leaves the grammar as it was.
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == #"{"name": ""#)
        #expect(try sampler.grammarDraft(maximumCharacters: 4) == #"{"na"#)
        try Self.accept(#"{"name": "ab"#, in: sampler, model: model)
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == "", "a letter or the closing quote: a choice")
        try Self.accept(#"""#, in: sampler, model: model)
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == #", "done": true}"#)
    }

    @Test("Optional whitespace within a draft is drafted as the accepted text wrote it after the same context; at its start, not")
    func whitespaceFromHistory() async throws {
        let (sampler, model) = try await Self.sampler("root ::= \"x:\" ws \"1,\" ws \"x:\" ws \"2,\" ws \"x:\" ws \"3\"\nws ::= [ \\n]?")
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == "x:", "no text yet shows which whitespace follows")
        try Self.accept("x: 1,\nx:", in: sampler, model: model)
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == "", "right after the model's own token, its choice")
        try Self.accept(" ", in: sampler, model: model)
        #expect(try sampler.grammarDraft(maximumCharacters: 64) == "2,\nx: 3")
    }

    @Test("A draft is at most the characters asked for, however long the fixed text")
    func bounded() async throws {
        let (sampler, _) = try await Self.sampler(#"root ::= "ab"{400} "c""#)
        let draft = try sampler.grammarDraft(maximumCharacters: 64)
        #expect(draft == String(repeating: "ab", count: 32))
        #expect(try sampler.grammarDraft(maximumCharacters: 0) == "")
    }

    @Test("Without an output grammar, and where the grammar may end, nothing is drafted")
    func nothingToDraft() async throws {
        let model = try await TestModel.grammarVocabulary()
        let free = try Sampler(model: model.handle, sampling: .greedy)
        #expect(try free.grammarDraft(maximumCharacters: 64) == "")
        let (optional, _) = try await Self.sampler(#"root ::= "yes" | "yes, surely""#)
        #expect(try optional.grammarDraft(maximumCharacters: 64) == "yes", "the grammar may end after it")
    }
}
