import CLlama

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

extension LocalModel {
    /// The logits after `tokens`, evaluated in one batch on a context of their own (for tests
    /// that check how close two tokens were).
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)`` or ``LocalModel/Error/decodeFailed(code:reason:)``.
    package func logits(after tokens: [Token]) throws -> [Float] {
        try tokenizer.validate(tokens)
        let context = try makeContext(contextLength: tokens.count + 1, fullSlidingWindowCache: false)
        try context.decode(tokens[...], startingAt: 0)
        guard let logits = llama_get_logits_ith(context.pointer, -1) else {
            throw LocalModel.Error.decodeFailed(code: -1, reason: "no logits")
        }
        return Array(UnsafeBufferPointer(start: logits, count: tokenizer.vocabularySize))
    }
}
