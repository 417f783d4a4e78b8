/// What a request evaluates, before tokenization.
package enum PromptInput: Sendable {
    /// Plain text: no template, special-token texts stay plain text.
    case text(String)
    /// Ready-made token ids.
    case tokens([Int32])
}

/// A piece of a rendered prompt, tokenized on its own.
package struct PromptSegment: Sendable, Equatable {
    /// The text.
    package var text: String
    /// Whether special-token texts in it become special tokens (template text),
    /// or stay plain text (anything a user wrote).
    package var parsesSpecialTokens: Bool

    /// A segment of `text`, parsed for special tokens or not.
    package init(text: String, parsesSpecialTokens: Bool) {
        self.text = text
        self.parsesSpecialTokens = parsesSpecialTokens
    }
}

extension Tokenizer {
    /// Tokenizes segments one by one; the first one gets the beginning-of-sequence token.
    package func tokenize(_ segments: [PromptSegment]) throws -> [Int32] {
        var tokens: [Int32] = []
        for (index, segment) in segments.enumerated() where !segment.text.isEmpty || index == 0 {
            tokens += try tokenize(segment.text, addSpecial: index == 0, parseSpecial: segment.parsesSpecialTokens)
        }
        return tokens
    }
}
