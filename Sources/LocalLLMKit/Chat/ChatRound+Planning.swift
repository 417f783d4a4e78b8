/// A turn's prompt, decided before anything is evaluated.
struct TurnPlan: Sendable {
    /// The earlier messages that stay (after any dropped turns).
    var history: [ChatMessage]
    /// The rendered prompt: history plus this turn's messages.
    var rendered: ChatTemplate.RenderedPrompt
    /// Its tokens (with stand-ins where images lie).
    var tokens: [Int32]
    /// Where images (or audio) lie in ``tokens``.
    var media: [PromptMediaSpan] = []
    /// Tokens kept free for the answer.
    var reservedTokens: Int
    /// Turns dropped to make room.
    var droppedTurns: Int
    /// Whether prompt plus reserve fit in the context.
    var fits: Bool
}

extension ChatRound {
    /// Renders the next turn (the new user message, and any tool calls and results this
    /// turn already added) after `history`, dropping the oldest turns first if the policy
    /// allows. Rendering may wait for a template worker and tokenizing takes time, so both run
    /// on the ``BlockingWorkPool``, never on Swift's shared pool.
    func plan(_ pending: [ChatMessage], after history: [ChatMessage], request: TurnRequest,
              toolChoice: Conversation.ToolChoice = .none) async throws -> TurnPlan {
        try await BlockingWorkPool.shared.run { [self] in
            try render(pending, after: history, request: request, toolChoice: toolChoice)
        }
    }

    /// ``plan(_:after:request:toolChoice:)``'s work, on the calling thread.
    private func render(_ pending: [ChatMessage], after history: [ChatMessage], request: TurnRequest,
                        toolChoice: Conversation.ToolChoice) throws -> TurnPlan {
        var history = history
        var dropped = 0
        let reserved = try request.options.reservedTokens(inContextOf: contextLength)
        let offer = try toolBox.offer(toolChoice)
        while true {
            let messages = history + pending
            let attachments = messages.flatMap(\.attachments)
            // Each attachment becomes a marker word before its message's text; the rendered
            // prompt is then split at the markers, and the projector puts the media there.
            let marker = attachments.isEmpty ? nil : LocalModel.makeMediaMarker()
            let shown = marker.map { marker in
                messages.map { message in
                    var message = message
                    message.content = String(repeating: marker, count: message.attachments.count) + message.content
                    message.attachments = []
                    return message
                }
            } ?? messages
            let rendered = try template.render(shown, addGenerationPrompt: true,
                                               enableThinking: request.thinking.isEnabled,
                                               arguments: templateArguments,
                                               tools: offer.tools.map(\.json), toolChoice: offer.choice)
            let prompt = try marker.map { try model.multimodalPrompt(rendered.segments, marker: $0, attachments: attachments) }
                ?? MultimodalPrompt(tokens: try model.tokenizer.tokenize(rendered.segments), media: [])
            let fits = prompt.tokens.count <= contextLength - reserved
            guard !fits, overflowPolicy == .dropOldestTurns, let oldest = Self.oldestTurn(in: history) else {
                return TurnPlan(history: history, rendered: rendered, tokens: prompt.tokens, media: prompt.media,
                                reservedTokens: reserved, droppedTurns: dropped, fits: fits)
            }
            history.removeSubrange(oldest)
            dropped += 1
        }
    }

    /// The range of the oldest turn: from the first message after the instructions up
    /// to the next user message.
    static func oldestTurn(in history: [ChatMessage]) -> Range<Int>? {
        guard let start = history.firstIndex(where: { $0.role != .system }) else { return nil }
        let end = history[(start + 1)...].firstIndex(where: { $0.role == .user }) ?? history.endIndex
        return start..<end
    }
}
