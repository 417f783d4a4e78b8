extension CompletionOptions {
    /// The tokens a request keeps free for its answer in a context of `contextLength` tokens
    /// (prompt and answer together): ``maximumResponseTokens``, or 1 when there is no limit.
    /// - Throws: ``LocalModel/Error/responseLengthExceedsContext(maximumResponseTokens:contextLength:)``
    ///   when ``maximumResponseTokens`` leaves no room for a prompt, so that the caller hears the real
    ///   cause rather than "the prompt is too long" (and no arithmetic overflows on huge values).
    package func reservedTokens(inContextOf contextLength: Int) throws -> Int {
        guard let maximumResponseTokens else { return 1 }
        guard maximumResponseTokens < contextLength else {
            throw LocalModel.Error.responseLengthExceedsContext(maximumResponseTokens: maximumResponseTokens,
                                                                contextLength: contextLength)
        }
        return maximumResponseTokens
    }
}
