/// Turns successive parses of a growing output into stream events: deltas while
/// each parse extends the last, a snapshot when a parse rewrites earlier text.
struct ReplyTracker {
    private(set) var reply = ParsedReply.empty

    /// The events that take the stream from the previous parse to `next`.
    mutating func update(to next: ParsedReply) -> [Conversation.Event] {
        defer { reply = next }
        let calls = callDeltas(to: next.toolCalls)
        guard let thinking = Self.delta(from: reply.reasoningContent, to: next.reasoningContent),
              let text = Self.delta(from: reply.content, to: next.content) else {
            return [.snapshot(text: next.content, thinking: next.reasoningContent)] + calls
        }
        return (thinking.isEmpty ? [] : [.thinking(thinking)]) + (text.isEmpty ? [] : [.text(text)]) + calls
    }

    /// What the calls gained since the last parse: a call's first piece once its name is known,
    /// then what extends its arguments (a parse that rewrites them adds nothing; the complete
    /// call comes at the end anyway).
    private func callDeltas(to calls: [ChatMessage.ToolCall]) -> [Conversation.Event] {
        calls.enumerated().compactMap { index, call -> Conversation.Event? in
            guard !call.name.isEmpty else { return nil }
            let id = (call.id ?? "").isEmpty ? nil : call.id
            guard index < reply.toolCalls.count, !reply.toolCalls[index].name.isEmpty else {
                return .toolCallDelta(.init(index: index, name: call.name, modelCallID: id, arguments: call.arguments, isFirst: true))
            }
            guard let added = Self.delta(from: reply.toolCalls[index].arguments, to: call.arguments), !added.isEmpty else { return nil }
            return .toolCallDelta(.init(index: index, name: call.name, modelCallID: id, arguments: added, isFirst: false))
        }
    }

    /// Extends the answer (or the thinking) by `chunk` without a parse: the event that
    /// ``update(to:)`` gives for a parse equal to the last one plus `chunk`, in time
    /// proportional to the chunk, not to the reply.
    mutating func append(_ chunk: String, toThinking: Bool) -> [Conversation.Event] {
        guard !chunk.isEmpty else { return [] }
        if toThinking {
            reply.reasoningContent += chunk
            return [.thinking(chunk)]
        }
        reply.content += chunk
        return [.text(chunk)]
    }

    /// What `new` adds to `old`, compared by Unicode scalars; nil when `new` does not extend `old`.
    /// (Compared as UTF-8, which is the same for valid text and faster: a byte prefix of valid
    /// UTF-8 that is itself valid ends on a scalar boundary.)
    static func delta(from old: String, to new: String) -> String? {
        guard new.utf8.starts(with: old.utf8) else { return nil }
        let start = new.utf8.index(new.utf8.startIndex, offsetBy: old.utf8.count)
        return String(new.unicodeScalars[start...])
    }
}
