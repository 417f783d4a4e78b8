/// What a request evaluates, before tokenization.
enum PromptInput: Sendable {
    /// Plain text: no template, special-token texts stay plain text.
    case text(String)
    /// Ready-made token ids.
    case tokens([Int32])
}

/// A piece of a rendered prompt, tokenized on its own.
struct PromptSegment: Sendable, Equatable {
    /// The text.
    var text: String
    /// Whether special-token texts in it become special tokens (template text),
    /// or stay plain text (anything a user wrote).
    var parsesSpecialTokens: Bool
}

extension Tokenizer {
    /// Tokenizes segments one by one; the first one gets the beginning-of-sequence token.
    func tokenize(_ segments: [PromptSegment]) throws -> [Int32] {
        var tokens: [Int32] = []
        for (index, segment) in segments.enumerated() where !segment.text.isEmpty || index == 0 {
            tokens += try tokenize(segment.text, addSpecial: index == 0, parseSpecial: segment.parsesSpecialTokens)
        }
        return tokens
    }
}
