/// A prompt rendered by a ``ChatTemplate``, with what is needed to run and parse the answer.
public struct RenderedChatPrompt: Sendable {
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
    /// Whether every message content could be kept apart from template text, so that
    /// special-token texts in it stay plain text. False when the template transforms
    /// some contents (trimming, escaping, parsing a tool result as JSON): those contents
    /// are then parsed for special tokens with the template text; the others stay isolated.
    public let isolatesMessageContents: Bool

    let segments: [PromptSegment]
    let render: ChatRenderHandle

    init(details: ChatRenderHandle.Description, segments: (segments: [PromptSegment], complete: Bool)?, render: ChatRenderHandle) {
        text = details.prompt
        format = details.format
        generationPrompt = details.generationPrompt
        thinkingStartTag = details.thinkingStartTag.isEmpty ? nil : details.thinkingStartTag
        thinkingEndTags = details.thinkingEndTags
        additionalStopSequences = details.additionalStops
        preservedTokens = details.preservedTokens
        constrainsToolCalls = !details.grammar.isEmpty
        isolatesMessageContents = segments?.complete ?? false
        self.segments = segments?.segments ?? [PromptSegment(text: details.prompt, parsesSpecialTokens: true)]
        self.render = render
    }
}
