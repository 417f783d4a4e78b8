import Foundation

/// Makes text that came from outside (model names, GGUF metadata, file names, model output)
/// safe to show on a terminal: control characters become visible escapes, so that no
/// escape sequence reaches the terminal and no value can start a new line of a table.
enum TerminalText {
    /// `text` with every control character written as an escape: `\n`, `\r`, `\t`, `\e`, or
    /// `\u{XX}` (C0 and C1 controls, DEL, and the invisible bidirectional overrides, which can
    /// reorder what a reader sees).
    /// - Parameter keepingLineBreaks: keep `\n` and `\t` as they are (for multi-line text such as
    ///   a model's answer, where only terminal sequences are dangerous).
    static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else {
            return text
        }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            default: out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        if keepingLineBreaks && (scalar == "\n" || scalar == "\t") { return false }
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true                  // C0, DEL, C1 (CSI is U+009B)
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true   // bidirectional controls
        case 0x2028, 0x2029: return true                            // line and paragraph separators
        default: return false
        }
    }
}
