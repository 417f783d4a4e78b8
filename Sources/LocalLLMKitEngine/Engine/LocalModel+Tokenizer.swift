extension LocalModel {
    /// The number of tokens in the vocabulary.
    public nonisolated var vocabularySize: Int { tokenizer.vocabularySize }

    /// Turns text into token ids.
    ///
    /// - Parameters:
    ///   - text: the text.
    ///   - addingBeginningOfSequence: add the beginning-of-sequence token when the model uses one.
    ///   - parsingSpecialTokens: turn texts such as `<start_of_turn>` into special tokens.
    ///     Leave it off for anything a user typed, so that user text cannot forge control tokens.
    /// - Throws: ``LocalModel/Error/tokenizationFailed(reason:)``.
    public nonisolated func tokenize(_ text: String, addingBeginningOfSequence: Bool = true,
                                     parsingSpecialTokens: Bool = false) throws -> [Token] {
        try tokenizer.tokenize(text, addSpecial: addingBeginningOfSequence, parseSpecial: parsingSpecialTokens)
    }

    /// Turns token ids back into text.
    /// - Parameters:
    ///   - tokens: token ids of this model's vocabulary.
    ///   - renderingSpecialTokens: include the text of special tokens such as `<eos>`.
    /// - Throws: ``LocalModel/Error/invalidToken(_:vocabularySize:)`` for an id outside the vocabulary.
    public nonisolated func detokenize(_ tokens: [Token], renderingSpecialTokens: Bool = false) throws -> String {
        try tokenizer.detokenize(tokens, renderSpecial: renderingSpecialTokens)
    }

    /// Whether `token` ends generation (end of sequence, end of turn…).
    public nonisolated func isEndOfGeneration(_ token: Token) -> Bool {
        tokenizer.isEndOfGeneration(token)
    }
}
