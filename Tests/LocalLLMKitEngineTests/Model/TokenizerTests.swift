import Testing
@testable import LocalLLMKitEngine

@Suite("Tokenizer")
struct TokenizerTests {
    @Test("text survives a round trip", arguments: ["Hello, world!", "日本語と한국어", "emoji 👩‍👩‍👧 🇰🇷", "  leading spaces\nand lines"])
    func roundTrip(text: String) async throws {
        let model = try await TestModel.load()
        let tokens = try model.tokenize(text, addingBeginningOfSequence: false)
        #expect(!tokens.isEmpty)
        #expect(try model.detokenize(tokens) == text)
    }

    @Test("the beginning-of-sequence token is added only when asked")
    func beginningOfSequence() async throws {
        let model = try await TestModel.load()
        let with = try model.tokenize("Hello")
        let without = try model.tokenize("Hello", addingBeginningOfSequence: false)
        #expect(with.count == without.count + 1)
        #expect(Array(with.dropFirst()) == without)
        #expect(try model.detokenize([with[0]], renderingSpecialTokens: true) == "<bos>")
    }

    @Test("special-token text becomes a special token only when parsing is asked for")
    func specialTokens() async throws {
        let model = try await TestModel.load()
        let parsed = try model.tokenize("<start_of_turn>", addingBeginningOfSequence: false, parsingSpecialTokens: true)
        let plain = try model.tokenize("<start_of_turn>", addingBeginningOfSequence: false, parsingSpecialTokens: false)
        #expect(parsed.count == 1)
        #expect(plain.count > 1)
        #expect(!plain.contains(parsed[0]))
        #expect(try model.detokenize(parsed) == "")
        #expect(try model.detokenize(parsed, renderingSpecialTokens: true) == "<start_of_turn>")
    }

    @Test("ids outside the vocabulary are rejected, not passed to llama.cpp")
    func invalidIDs() async throws {
        let model = try await TestModel.load()
        let size = model.vocabularySize
        #expect(size == 262_144)
        #expect(throws: LocalModel.Error.invalidToken(Int32(size), vocabularySize: size)) {
            try model.detokenize([1, Int32(size)])
        }
        #expect(throws: LocalModel.Error.invalidToken(-5, vocabularySize: size)) {
            try model.detokenize([-5])
        }
    }
}
