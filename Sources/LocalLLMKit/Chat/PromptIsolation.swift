/// Keeps message contents apart from template text, so that text a user wrote is
/// never parsed for special tokens.
///
/// The template is rendered a second time with each content replaced by a unique
/// placeholder. If putting the contents back into that rendering reproduces the real
/// prompt exactly, the placeholders mark where each content lies. If not (the
/// template trims, escapes or inspects some contents, e.g. a tool result it parses
/// as JSON), only the messages whose placeholder alone round-trips are isolated; the
/// others are parsed for special tokens with the template text.
enum PromptIsolation {
    private static let marker: Character = "\u{F8FF}"

    /// The prompt's segments, and whether every content is isolated; nil when none can be.
    static func segments(of prompt: String, messages: [ChatMessage],
                         renderMasked: ([ChatMessage]) throws -> String) throws -> (segments: [PromptSegment], complete: Bool)? {
        let contents = messages.map(\.content)
        let candidates = messages.indices.filter { !contents[$0].isEmpty }
        guard !candidates.isEmpty else {
            return ([PromptSegment(text: prompt, parsesSpecialTokens: true)], true)
        }
        func segments(masking indices: [Int]) -> [PromptSegment]? {
            var masked = messages
            for index in indices { masked[index].content = placeholder(index) }
            guard let rendering = try? renderMasked(masked) else { return nil }
            let segments = split(rendering, contents: contents)
            return segments.map(\.text).joined() == prompt ? segments : nil
        }
        if let all = segments(masking: candidates) { return (all, true) }
        // One render per message: only in this fallback, for templates that transform some contents.
        let isolatable = candidates.filter { segments(masking: [$0]) != nil }
        guard !isolatable.isEmpty, let some = segments(masking: isolatable) else { return nil }
        return (some, false)
    }

    private static func placeholder(_ index: Int) -> String { "\(marker)\(index)\(marker)" }

    /// Splits a rendering at placeholders, putting each message's content back.
    static func split(_ rendered: String, contents: [String]) -> [PromptSegment] {
        var segments: [PromptSegment] = []
        var literal = ""
        var rest = Substring(rendered)
        while let open = rest.firstIndex(of: marker) {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: marker),
                  let index = Int(rest[afterOpen..<close]), contents.indices.contains(index) else {
                literal += rest[...open]
                rest = rest[afterOpen...]
                continue
            }
            literal += rest[..<open]
            segments.append(PromptSegment(text: literal, parsesSpecialTokens: true))
            segments.append(PromptSegment(text: contents[index], parsesSpecialTokens: false))
            literal = ""
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        segments.append(PromptSegment(text: literal, parsesSpecialTokens: true))
        return segments
    }
}
