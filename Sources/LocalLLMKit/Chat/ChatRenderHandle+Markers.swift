import CLlamaChatBridge

extension ChatRenderHandle {
    /// The texts at which the template's output parser can change how it splits the output:
    /// thinking tags, preserved tokens (`<tool_call>`), extra stops, grammar triggers and the
    /// delimiters where the parser's free-text scanners stop.
    /// - Throws: ``LLMKitError/outputParsingFailed(reason:)`` when the bridge cannot list them.
    func markers() throws -> [String] {
        try Bridge.json([String].self, failure: { LLMKitError.outputParsingFailed(reason: $0) }) {
            llmkit_chat_render_markers(pointer, $0)
        }
    }
}
