/// One chat round, without state: it renders messages through the template (with tools and
/// thinking), plans the prompt into the context (dropping old turns where the policy allows),
/// generates once with the right sampling constraint (a format's grammar, or the tool-call
/// grammar), and parses the reply into events.
///
/// ``Conversation`` adds a transcript and the turn lock on top; the server answers each request
/// with a round of its own, since a client sends the whole chat every time. A round holds only
/// values (the model, the template, the checked tools, the settings), so it is built per request
/// for nothing and shared freely.
package struct ChatRound: Sendable {
    /// The model.
    package let model: LocalModel
    /// The chat template that renders the messages.
    package let template: ChatTemplate
    /// The tools the model may call, checked.
    let toolBox: ToolBox
    /// The context length rounds plan within.
    package let contextLength: Int
    /// What happens when the prompt does not fit.
    let overflowPolicy: Conversation.OverflowPolicy
    /// Extra values passed to the template.
    let templateArguments: [String: ChatTemplate.Argument]
    /// Whether a round starts from the longest prefix already in the model's cache.
    let reusesPromptCache: Bool

    /// A round over `model` with `template`, offering `tools`, within `contextLength` tokens.
    /// - Throws: ``ChatTemplate/Error/toolsUnsupported(template:)`` when tools are given and the
    ///   template cannot render them; ``Conversation/Error/invalidTool(name:reason:)``.
    init(model: LocalModel, template: ChatTemplate, toolBox: ToolBox, contextLength: Int,
         overflowPolicy: Conversation.OverflowPolicy = .fail, templateArguments: [String: ChatTemplate.Argument] = [:],
         reusesPromptCache: Bool = true) throws {
        if !toolBox.tools.isEmpty && !template.supportsToolCalls {
            throw ChatTemplate.Error.toolsUnsupported(template: template.source.description)
        }
        self.model = model
        self.template = template
        self.toolBox = toolBox
        self.contextLength = contextLength
        self.overflowPolicy = overflowPolicy
        self.templateArguments = templateArguments
        self.reusesPromptCache = reusesPromptCache
    }

    /// A round over `model` with a template already built for it (a server builds the template
    /// once and a round per request), within the model's whole context.
    /// - Throws: as ``init(model:template:toolBox:contextLength:overflowPolicy:templateArguments:reusesPromptCache:)``.
    package init(model: LocalModel, template: ChatTemplate, tools: [any ConversationTool], reusesPromptCache: Bool = true) throws {
        try self.init(model: model, template: template, toolBox: try ToolBox(tools), contextLength: model.contextLength,
                      reusesPromptCache: reusesPromptCache)
    }

    /// The tools the model may call.
    package var tools: [any ConversationTool] { toolBox.tools }
}
