import Foundation

/// The one writer of double-quoted literals, for the two formats that share JSON's escapes:
/// JSON strings and GBNF string literals. Both escape the same characters (`"`, `\`, and every
/// control character, C0 and DEL), so that a JSON value's text and the grammar literal that
/// forces it never disagree on which bytes are spelled out; only the numeric escape differs.
enum QuotedLiteral {
    /// Whose spelling of a numeric escape to use.
    enum Format {
        /// `\u001f`, as JSON writes it.
        case json
        /// `\x1f`, as llama.cpp's GBNF parser reads it.
        case grammar
    }

    /// `text` between double quotes, escaped for `format`.
    static func quoted(_ text: String, as format: Format) -> String {
        var out = ""
        write(text, as: format, to: &out)
        return out
    }

    /// Appends `text` between double quotes, escaped for `format`, to `out`.
    static func write(_ text: String, as format: Format, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                switch format {
                case .json: out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                case .grammar: out += "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
