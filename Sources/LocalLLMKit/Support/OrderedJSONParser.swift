/// Parses JSON text into ``OrderedJSON``, keeping object keys in document order. Nesting
/// is limited to ``maximumDepth`` levels, so that no document can exhaust the stack here or
/// in the recursive code that walks the result.
package struct OrderedJSONParser {
    /// The deepest nesting of arrays and objects accepted.
    package static let maximumDepth = 256

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private let scalars: [Unicode.Scalar]
    /// Whether raw control characters (U+0000 to U+001F) are refused inside strings, as
    /// RFC 8259 says; off, they are kept (model output sometimes holds raw line breaks).
    private let strict: Bool
    private var index = 0
    private var depth = 0

    /// Parses a whole document.
    package static func parse(_ text: String, strict: Bool = false) throws -> OrderedJSON {
        var parser = OrderedJSONParser(scalars: Array(text.unicodeScalars), strict: strict)
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.scalars.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    private init(scalars: [Unicode.Scalar], strict: Bool) {
        self.scalars = scalars
        self.strict = strict
    }

    private func failure(_ message: String) -> Failure {
        Failure(description: "\(message) at character \(index)")
    }

    private mutating func skipSpace() {
        while index < scalars.count, [" ", "\n", "\r", "\t"].contains(scalars[index]) { index += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        for scalar in literal.unicodeScalars {
            guard index < scalars.count, scalars[index] == scalar else { throw failure("expected \(literal)") }
            index += 1
        }
    }

    private mutating func value() throws -> OrderedJSON {
        skipSpace()
        guard index < scalars.count else { throw failure("unexpected end") }
        switch scalars[index] {
        case "{", "[":
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
            return scalars[index] == "{" ? try object() : try array()
        case "\"": return .string(try string())
        case "t": try expect("true"); return .bool(true)
        case "f": try expect("false"); return .bool(false)
        case "n": try expect("null"); return .null
        default: return try number()
        }
    }

    private mutating func object() throws -> OrderedJSON {
        index += 1
        var members: [(String, OrderedJSON)] = []
        skipSpace()
        if index < scalars.count, scalars[index] == "}" { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < scalars.count, scalars[index] == "\"" else { throw failure("expected a key") }
            let key = try string()
            skipSpace()
            try expect(":")
            members.append((key, try value()))
            skipSpace()
            guard index < scalars.count else { throw failure("unexpected end") }
            if scalars[index] == "," { index += 1; continue }
            try expect("}")
            return .object(members)
        }
    }

    private mutating func array() throws -> OrderedJSON {
        index += 1
        var values: [OrderedJSON] = []
        skipSpace()
        if index < scalars.count, scalars[index] == "]" { index += 1; return .array(values) }
        while true {
            values.append(try value())
            skipSpace()
            guard index < scalars.count else { throw failure("unexpected end") }
            if scalars[index] == "," { index += 1; continue }
            try expect("]")
            return .array(values)
        }
    }

    private mutating func string() throws -> String {
        index += 1
        var out = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\"": return String(out)
            case _ where strict && scalar.value < 0x20:
                index -= 1
                throw failure("a raw control character (U+\(String(format: "%04X", scalar.value))) in a string")
            case "\\":
                guard index < scalars.count else { break }
                let escaped = scalars[index]
                index += 1
                switch escaped {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "b": out.append("\u{08}")
                case "f": out.append("\u{0C}")
                case "u":
                    var code = try hexQuad()
                    // A high surrogate followed by an escaped low one is one character beyond U+FFFF.
                    if (0xD800...0xDBFF).contains(code), index + 1 < scalars.count, scalars[index] == "\\", scalars[index + 1] == "u" {
                        let mark = index
                        index += 2
                        let low = try hexQuad()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = mark
                        }
                    }
                    out.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                case "\"", "\\", "/": out.append(escaped)
                default: throw failure("bad escape \\\(escaped)")
                }
            default: out.append(scalar)
            }
        }
        throw failure("unterminated string")
    }

    /// Four hexadecimal digits of a `\\u` escape.
    private mutating func hexQuad() throws -> UInt32 {
        guard index + 4 <= scalars.count,
              let code = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + 4)])), radix: 16) else {
            throw failure("bad \\u escape")
        }
        index += 4
        return code
    }

    private mutating func number() throws -> OrderedJSON {
        let start = index
        while index < scalars.count, "+-0123456789.eE".unicodeScalars.contains(scalars[index]) { index += 1 }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        // JSON has no leading `+` and no leading zeros (`01`), which Swift's parsers accept.
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !text.hasPrefix("+"), !(digits.count > 1 && digits.hasPrefix("0") && digits.dropFirst().first?.isNumber == true) else {
            throw failure("bad number \(text)")
        }
        if let integer = Int(text) { return .integer(integer) }
        if let number = Double(text) { return .number(number) }
        throw failure("bad value \(text.isEmpty ? "" : text)")
    }
}
