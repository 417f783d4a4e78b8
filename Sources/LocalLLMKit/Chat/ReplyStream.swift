/// Follows a model's output chunk by chunk and turns it into stream events, parsing it with the
/// template's parser only when a chunk could change how the output splits.
///
/// A parse costs time in proportion to the whole output, so parsing after every chunk makes a
/// long answer quadratic. After a parse that only appended the new output, verbatim, to the answer
/// (or to the thinking), and in which no tool call has begun, a chunk only extends that text when
/// no marker can begin in it or reach into it: no generic markup byte (`<`, `[`, `{`, NUL) is in
/// the chunk or in the ``ReplyMarkers/window`` before it, and no known marker
/// (``ChatRenderHandle/markers()``) overlaps the chunk, whole or, for a delimiter of the parser's
/// scans, begun at its end. Such a chunk becomes a delta without a parse; any other chunk is
/// parsed as before. A chunk that ends in white space is parsed too, until a parse has shown that
/// this text keeps that white space at its end (a parser may trim it or hold it back). The events
/// are exactly those of parsing every chunk.
package struct ReplyStream {
    /// When a stream parses the output.
    package enum Parsing: Sendable, Equatable {
        /// Only after chunks that could change the split (the default).
        case incremental
        /// After every chunk: the behaviour before incremental parsing, kept for comparison.
        case everyChunk
    }

    /// The text that the end of the output extends.
    private enum Field: Int {
        case answer, thinking
    }

    private let render: ChatRenderHandle
    private let thinkingEndTags: [String]
    /// nil when every chunk is parsed.
    private let markers: ReplyMarkers?
    /// Everything generated so far.
    private(set) var raw = ""
    private var rawByteCount = 0
    /// How much of the output, in bytes, the tracker's reply stands for.
    private var replyByteCount = 0
    /// The byte offset in ``raw`` just after the last generic markup byte.
    private var genericFreeStart = 0
    private var tracker = ReplyTracker()
    /// The text that the end of the output was, verbatim, in the last parse, when the next chunk
    /// can extend it without a parse; nil otherwise.
    private var growing: Field?
    /// For each field, the ASCII white-space bytes a parse has kept at its end.
    private var keptTrailingSpace: [Set<UInt8>] = [[], []]
    /// For each tool call found so far, whether the model made it while thinking.
    private(set) var phases: [ToolInvocation.Phase] = []
    /// Parses made so far, the final one included.
    private(set) var parseCount = 0

    /// A stream for output generated after `rendered`.
    init(rendered: ChatTemplate.RenderedPrompt, parsing: Parsing) {
        self.init(render: rendered.render, thinkingEndTags: rendered.thinkingEndTags, parsing: parsing)
    }

    /// A stream for output that `render`'s parser splits; `thinkingEndTags` close its thinking.
    init(render: ChatRenderHandle, thinkingEndTags: [String], parsing: Parsing) {
        self.render = render
        self.thinkingEndTags = thinkingEndTags
        // Without the parser's markers nothing is known to be safe: every chunk is parsed.
        markers = parsing == .incremental ? (try? render.markers()).map(ReplyMarkers.init) : nil
    }

    /// The answer, thinking and tool calls as of the last event.
    var reply: ParsedReply { tracker.reply }

    /// Adds a chunk of output and returns the events it causes.
    mutating func append(_ chunk: String) -> [Conversation.Event] {
        let start = rawByteCount
        raw += chunk
        rawByteCount += chunk.utf8.count
        guard let markers else { return parse() }
        let genericFreeBefore = start - genericFreeStart
        var generic = false
        var offset = start
        for byte in chunk.utf8 {
            offset += 1
            if markers.isGeneric(byte) {
                generic = true
                genericFreeStart = offset
            }
        }
        if let field = growing, !generic, genericFreeBefore >= markers.window, let last = chunk.utf8.last,
           !Self.endsInSpace(chunk) || keptTrailingSpace[field.rawValue].contains(last) {
            let chunkLength = rawByteCount - start
            let recent = Array(raw.utf8.suffix(min(rawByteCount, markers.window - 1 + chunkLength)))
            if !markers.touchesChunk(recent, chunkLength: chunkLength) {
                replyByteCount = rawByteCount
                return tracker.append(chunk, toThinking: field == .thinking)
            }
        }
        return parse()
    }

    /// The final parse of the whole output, and the events it causes. Output that ended on its
    /// own (`isComplete`) must parse as a whole; output cut short (length, stop sequence,
    /// cancellation) is parsed as partial, and keeps what was streamed if even that fails.
    /// - Throws: ``ChatTemplate/Error/unparsableOutput(raw:reason:)`` when complete output does
    ///   not parse.
    mutating func finish(isComplete: Bool) throws -> [Conversation.Event] {
        parseCount += 1
        let final = isComplete ? try parse(raw, isPartial: false) : (try? parse(raw, isPartial: true)) ?? tracker.reply
        return tracker.update(to: final)
    }

    /// Parses the output so far as partial output.
    private mutating func parse() -> [Conversation.Event] {
        parseCount += 1
        growing = nil
        guard let parsed = try? parse(raw, isPartial: true) else { return [] }
        if phases.count < parsed.toolCalls.count {
            // A call made before the thinking block closed belongs to the thinking phase.
            let thinking = !parsed.reasoningContent.isEmpty && !thinkingEndTags.contains { raw.contains($0) }
            phases += Array(repeating: thinking ? .thinking : .answer, count: parsed.toolCalls.count - phases.count)
        }
        let added = rawByteCount - replyByteCount
        let events = tracker.update(to: parsed)
        replyByteCount = rawByteCount
        if let markers, let field = growingField(of: parsed, events: events, added: added, window: markers.window) {
            growing = field
            if Self.endsInSpace(raw), let last = raw.utf8.last, last < 0x80 {
                keptTrailingSpace[field.rawValue].insert(last)
            }
        }
        return events
    }

    /// `text` split by the template's parser: through JSON when every chunk is parsed (as before
    /// incremental parsing), as plain texts otherwise (the same result, for less).
    private func parse(_ text: String, isPartial: Bool) throws -> ParsedReply {
        markers == nil ? try render.parse(text, isPartial: isPartial) : try render.parseParts(text, isPartial: isPartial)
    }

    /// Which text the end of the output extends in `parsed`, known from what the parse did: it
    /// appended to that text exactly the `added` bytes of output since the previous reply (its
    /// only event), and that text now ends with the output's last `window` bytes. (The end alone
    /// can match by chance, where the output repeats text the parser stopped reading before.) Nil
    /// while a tool call has begun, since its arguments are not text a chunk can simply extend.
    private func growingField(of parsed: ParsedReply, events: [Conversation.Event], added: Int, window: Int) -> Field? {
        guard parsed.toolCalls.isEmpty, added > 0, rawByteCount >= window, events.count == 1 else { return nil }
        let field: Field, text: String, delta: String
        switch events[0] {
        case .text(let appended): (field, text, delta) = (.answer, parsed.content, appended)
        case .thinking(let appended): (field, text, delta) = (.thinking, parsed.reasoningContent, appended)
        default: return nil
        }
        guard delta.utf8.elementsEqual(raw.utf8.suffix(added)) else { return nil }
        return text.utf8.suffix(window).elementsEqual(raw.utf8.suffix(window)) ? field : nil
    }

    /// Whether `text` ends in a white-space character.
    private static func endsInSpace(_ text: String) -> Bool {
        text.unicodeScalars.last?.properties.isWhitespace ?? false
    }
}
