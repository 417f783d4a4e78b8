extension CompletionOptions {
    /// The tokens a request keeps free for its answer in a context of `contextLength` tokens
    /// (prompt and answer together): ``maximumTokens``, or 1 when there is no limit.
    /// - Throws: ``LLMKitError/maximumTokensExceedContext(maximumTokens:contextLength:)`` when
    ///   ``maximumTokens`` leaves no room for a prompt, so that the caller hears the real cause
    ///   rather than "the prompt is too long" (and no arithmetic overflows on huge values).
    func reservedTokens(inContextOf contextLength: Int) throws -> Int {
        guard let maximumTokens else { return 1 }
        guard maximumTokens < contextLength else {
            throw LLMKitError.maximumTokensExceedContext(maximumTokens: maximumTokens, contextLength: contextLength)
        }
        return maximumTokens
    }
}
