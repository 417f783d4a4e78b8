/// Keeps everything that comes from messages (contents, thinking, tool calls and results)
/// from becoming control tokens, whatever the template does to it: trim it, escape it, parse
/// it as JSON, move it around.
///
/// 1. **Neutralize.** Every control-token text in a message string (``ControlTokenTexts``) is
///    replaced by a sentinel (a random ASCII word that trimming, escaping and JSON leave alone).
///    Strings that are not masked below (tool names) also lose the pieces at their ends that
///    could join template text into a control token (`<function={{ name }}>` with the name
///    `x<start_of_turn`). The template renders the neutralized messages; the sentinels are put
///    back afterwards, as plain text.
/// 2. **Mask and align.** The template also renders the messages with each content, thinking,
///    tool-call id and argument string replaced by a placeholder (keeping its surrounding
///    whitespace, so that trimming and emptiness tests behave alike). Between placeholders that
///    rendering holds only template text. The real rendering must be those pieces of template
///    text, in order, with anything in between: where that match is unique, the pieces are
///    parsed for special tokens and everything between them is plain text. Where it is not
///    unique, only what is template text in every match is parsed.
/// 3. **Fallback.** When the pieces do not match (the template's output depends on what the
///    contents say), every message string is neutralized with its end pieces too and the
///    whole rendering is parsed, sentinels apart: no control-token text is left in message
///    text, and none can form across its edges. Only a template that deletes characters from
///    inside a content could still join its pieces.
struct PromptIsolation {
    /// The outcome: the prompt's segments and its text with the sentinels put back.
    struct Isolated {
        var segments: [PromptSegment]
        var text: String
        /// Whether the contents were located in the rendering (step 2), not only neutralized.
        var locatesContents: Bool
    }

    /// The messages the template renders.
    let neutralized: [ChatMessage]
    /// The messages with placeholders, or nil when there is nothing to mask.
    let masked: [ChatMessage]?
    private let nonce: String
    private let originals: [String]
    private let controlTexts: ControlTokenTexts
    private let messages: [ChatMessage]

    /// Plans the isolation of `messages` (steps 1 and 2).
    init(_ messages: [ChatMessage], controlTexts: ControlTokenTexts) {
        self.init(messages, controlTexts: controlTexts, strict: false)
    }

    private init(_ messages: [ChatMessage], controlTexts: ControlTokenTexts, strict: Bool) {
        let nonce = Self.nonce(avoiding: messages)
        var neutralizer = Neutralizer(nonce: nonce, controlTexts: controlTexts)
        neutralized = messages.map { neutralizer.neutralize($0, strict: strict) }
        originals = neutralizer.originals
        var placeholders = 0
        let masked = neutralized.map { Self.mask($0, nonce: nonce, count: &placeholders) }
        self.masked = placeholders > 0 ? masked : nil
        self.nonce = nonce
        self.controlTexts = controlTexts
        self.messages = messages
    }

    /// The plan for step 3: every string neutralized with its end pieces.
    func strict() -> PromptIsolation {
        PromptIsolation(messages, controlTexts: controlTexts, strict: true)
    }

    /// Isolates the contents in `rendered` (the rendering of ``neutralized``) by aligning it with
    /// `maskedRendering` (the rendering of ``masked``); nil when they do not align.
    func isolate(_ rendered: String, maskedRendering: String?) -> Isolated? {
        guard masked != nil else { return splitAtSentinels(rendered, locatesContents: true) }
        guard let maskedRendering else { return nil }
        let bytes = Array(rendered.utf8)
        let literals = split(Array(maskedRendering.utf8), at: "M")
        guard let templateRanges = PromptAlignment.templateRanges(of: bytes, literals: literals) else { return nil }
        var segments: [PromptSegment] = []
        var position = 0
        for range in templateRanges + [bytes.count..<bytes.count] {
            if position < range.lowerBound {
                segments.append(PromptSegment(text: restore(bytes[position..<range.lowerBound]), parsesSpecialTokens: false))
            }
            segments += sentinelSegments(bytes[range])
            position = range.upperBound
        }
        return Isolated(segments: segments, text: segments.map(\.text).joined(), locatesContents: true)
    }

    /// Step 3: the rendering parsed for special tokens, except the neutralized pieces.
    func splitAtSentinels(_ rendered: String, locatesContents: Bool = false) -> Isolated {
        let segments = sentinelSegments(Array(rendered.utf8)[...])
        return Isolated(segments: segments, text: segments.map(\.text).joined(), locatesContents: locatesContents)
    }

    // MARK: - Sentinels and placeholders

    /// `NONCE` + kind (`S` sentinel, `M` placeholder) + decimal index + `Z`.
    static func marker(_ nonce: String, _ kind: Character, _ index: Int) -> String { "\(nonce)\(kind)\(index)Z" }

    /// A random upper-case word found in no message string. Its first letter appears only
    /// there, so that no occurrence can start inside text that precedes one.
    private static func nonce(avoiding messages: [ChatMessage]) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPRSTUVWXY3456789")
        while true {
            let nonce = "Q" + String((0..<11).map { _ in alphabet.randomElement()! })
            let collides = messages.contains { message in
                ([message.content, message.thinking ?? "", message.toolCallID ?? "", message.name ?? ""]
                    + message.toolCalls.flatMap { [$0.name, $0.arguments, $0.id ?? ""] }).contains { $0.contains(nonce) }
            }
            if !collides { return nonce }
        }
    }

    /// Finds the markers of `kind` in `bytes`: (range, index) in order.
    private func markers(in bytes: ArraySlice<UInt8>, kind: Character) -> [(Range<Int>, Int)] {
        let prefix = Array((nonce + String(kind)).utf8)
        var found: [(Range<Int>, Int)] = []
        var start = bytes.startIndex
        while let hit = PromptAlignment.firstIndex(of: prefix, in: bytes, from: start, to: bytes.endIndex) {
            var index = hit + prefix.count
            var value = 0
            while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]), value < Int.max / 10 - 9 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            if index > hit + prefix.count, index < bytes.endIndex, bytes[index] == 0x5A {
                found.append((hit..<(index + 1), value))
                start = index + 1
            } else {
                start = hit + 1
            }
        }
        return found
    }

    /// The pieces of `bytes` between placeholders of `kind`.
    private func split(_ bytes: [UInt8], at kind: Character) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var position = 0
        for (range, _) in markers(in: bytes[...], kind: kind) {
            pieces.append(Array(bytes[position..<range.lowerBound]))
            position = range.upperBound
        }
        pieces.append(Array(bytes[position...]))
        return pieces
    }

    /// Template text with the neutralized pieces cut out as plain text.
    private func sentinelSegments(_ bytes: ArraySlice<UInt8>) -> [PromptSegment] {
        var segments: [PromptSegment] = []
        var position = bytes.startIndex
        for (range, index) in markers(in: bytes, kind: "S") where originals.indices.contains(index) {
            segments.append(PromptSegment(text: String(decoding: bytes[position..<range.lowerBound], as: UTF8.self),
                                          parsesSpecialTokens: true))
            segments.append(PromptSegment(text: originals[index], parsesSpecialTokens: false))
            position = range.upperBound
        }
        segments.append(PromptSegment(text: String(decoding: bytes[position...], as: UTF8.self), parsesSpecialTokens: true))
        return segments
    }

    /// Plain text with the neutralized pieces put back.
    private func restore(_ bytes: ArraySlice<UInt8>) -> String {
        sentinelSegments(bytes).map(\.text).joined()
    }

    /// The message with its contents, thinking, ids and argument strings replaced by placeholders.
    private static func mask(_ message: ChatMessage, nonce: String, count: inout Int) -> ChatMessage {
        func placeholder(_ text: String) -> String {
            let isSpace: (Character) -> Bool = { $0.isWhitespace }
            guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
                return text // empty or blank: kept, so that emptiness tests behave alike
            }
            count += 1
            return String(text[..<first]) + marker(nonce, "M", count) + String(text[text.index(after: last)...])
        }
        func maskStrings(_ value: OrderedJSON) -> OrderedJSON {
            switch value {
            case .string(let text): return .string(placeholder(text))
            case .array(let items): return .array(items.map(maskStrings))
            case .object(let members): return .object(members.map { ($0.0, maskStrings($0.1)) })
            default: return value
            }
        }
        var masked = message
        masked.content = placeholder(message.content)
        masked.thinking = message.thinking.map(placeholder)
        masked.toolCallID = message.toolCallID.map(placeholder)
        masked.toolCalls = message.toolCalls.map { call in
            var call = call
            call.id = call.id.map(placeholder)
            if let arguments = try? OrderedJSONParser.parse(call.arguments) {
                call.arguments = maskStrings(arguments).serialized()
            }
            return call
        }
        return masked
    }

    /// Replaces control-token texts (and, where asked, end pieces) with sentinels.
    private struct Neutralizer {
        let nonce: String
        let controlTexts: ControlTokenTexts
        var originals: [String] = []

        mutating func neutralize(_ message: ChatMessage, strict: Bool) -> ChatMessage {
            var message = message
            message.content = neutralize(message.content, fragments: strict)
            message.thinking = message.thinking.map { neutralize($0, fragments: strict) }
            message.toolCallID = message.toolCallID.map { neutralize($0, fragments: strict) }
            // Names are never masked, so their end pieces always go.
            message.name = message.name.map { neutralize($0, fragments: true) }
            message.toolCalls = message.toolCalls.map { call in
                ChatMessage.ToolCall(name: neutralize(call.name, fragments: true),
                                     arguments: neutralize(call.arguments, fragments: strict),
                                     id: call.id.map { neutralize($0, fragments: strict) })
            }
            return message
        }

        mutating func neutralize(_ text: String, fragments: Bool) -> String {
            let bytes = Array(text.utf8)
            var ranges = controlTexts.occurrences(in: bytes)
            if fragments { ranges += controlTexts.fragments(in: bytes) }
            guard !ranges.isEmpty else { return text }
            var merged: [Range<Int>] = []
            for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = merged.last, range.lowerBound < last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            var output: [UInt8] = []
            var position = 0
            for range in merged {
                output += bytes[position..<range.lowerBound]
                originals.append(String(decoding: bytes[range], as: UTF8.self))
                output += Array(PromptIsolation.marker(nonce, "S", originals.count - 1).utf8)
                position = range.upperBound
            }
            output += bytes[position...]
            return String(decoding: output, as: UTF8.self)
        }
    }
}
