extension ChatTemplate {
    /// A prompt rendered by a ``ChatTemplate``, with what is needed to run and parse the answer.
    public struct RenderedPrompt: Sendable {
        /// The prompt text, exactly as it will be tokenized.
        public let text: String
        /// The output format llama.cpp detected for the template (e.g. `peg-native`).
        public let format: String
        /// The marker that starts the assistant's answer, as rendered at the end of the prompt.
        public let generationPrompt: String
        /// The tag that opens a thinking block (e.g. `<think>`), when the template has one.
        public let thinkingStartTag: String?
        /// The tags that close a thinking block.
        public let thinkingEndTags: [String]
        /// Extra strings after which the template's answer is over.
        public let additionalStopSequences: [String]
        /// Texts of special tokens (such as `<tool_call>`) that must reach the output parser as text.
        public let preservedTokens: [String]
        /// Whether the template constrains tool calls with a grammar (lazy: only once a call starts).
        public let constrainsToolCalls: Bool
        /// Whether the message contents were located in the prompt and are tokenized as plain
        /// text apart from the template text. False when the template's output depends on what
        /// the contents say: they are then tokenized with the template text, but with every
        /// control-token text in them (and every piece that could join one) neutralized.
        /// Either way, no message text becomes a control token.
        public let isolatesMessageContents: Bool

        let segments: [PromptSegment]
        let render: ChatRenderHandle
        /// The template's tool-call grammar (empty when it has none) and, when it is lazy, its triggers.
        let toolCallGrammar: String
        let toolCallTriggers: [GrammarTrigger]

        init(details: ChatRenderHandle.Description, isolated: PromptIsolation.Isolated, render: ChatRenderHandle) {
            text = isolated.text
            format = details.format
            generationPrompt = details.generationPrompt
            thinkingStartTag = details.thinkingStartTag.isEmpty ? nil : details.thinkingStartTag
            thinkingEndTags = details.thinkingEndTags
            additionalStopSequences = details.additionalStops
            preservedTokens = details.preservedTokens
            constrainsToolCalls = !details.grammar.isEmpty
            isolatesMessageContents = isolated.locatesContents
            segments = isolated.segments
            self.render = render
            toolCallGrammar = details.grammar
            toolCallTriggers = details.grammarTriggers.compactMap { trigger in
                GrammarTrigger.Kind(rawValue: trigger.kind).map { GrammarTrigger(kind: $0, value: trigger.value) }
            }
        }
    }
}
