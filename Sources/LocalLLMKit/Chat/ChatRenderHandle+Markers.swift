import CLlamaChatBridge

extension ChatRenderHandle {
    /// The texts at which the template's output parser can change how it splits the output.
    struct Markers: Decodable, Equatable {
        /// Where the parser's free-text scans stop; a scan holds back the start of one at the end
        /// of the output.
        var delimiters: [String]
        /// The thinking tags, preserved tokens (`<tool_call>`), extra stops and grammar triggers.
        var markers: [String]
    }

    /// The texts at which the template's output parser can change how it splits the output.
    /// - Throws: ``ChatTemplate/Error/failed(reason:)`` when the bridge cannot list them.
    func markers() throws -> Markers {
        try Bridge.json(Markers.self, failure: ChatTemplate.Error.failed) {
            llmkit_chat_render_markers(pointer, $0)
        }
    }
}
