/// Backslash escapes in flag values such as `--stop '\n\n'`, which a shell cannot easily pass
/// as real control characters.
enum EscapeSequences {
    /// `text` with `\n`, `\t`, `\r`, `\\`, `\"` and `\uXXXX` (four hexadecimal digits, one
    /// Unicode scalar) decoded.
    /// - Throws: ``UsageError`` naming `option` for any other escape, a lone backslash at the
    ///   end, or a `\u` that is not four hexadecimal digits of a Unicode scalar.
    static func decode(_ text: String, option: String) throws -> String {
        guard text.contains("\\") else { return text }
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        func fail(_ escape: String, _ reason: String) -> UsageError {
            UsageError(message: "invalid escape '\(escape)' in \(option) '\(text)': \(reason)")
        }
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                result.append(scalar)
                continue
            }
            guard let code = scalars.next() else {
                throw fail("\\", "a backslash ends the value (write \\\\ for a backslash)")
            }
            switch code {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "\\": result.append("\\")
            case "\"": result.append("\"")
            case "u":
                var digits = ""
                while digits.unicodeScalars.count < 4, let next = scalars.next() { digits.unicodeScalars.append(next) }
                guard digits.unicodeScalars.count == 4, digits.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit),
                      let value = UInt32(digits, radix: 16) else {
                    throw fail("\\u\(digits)", "\\u takes exactly four hexadecimal digits")
                }
                guard let decoded = Unicode.Scalar(value) else {
                    throw fail("\\u\(digits)", "U+\(digits) is a surrogate, not a character")
                }
                result.append(decoded)
            default:
                throw fail("\\\(code)", "the escapes are \\n \\t \\r \\\\ \\\" and \\uXXXX")
            }
        }
        return String(result)
    }
}
