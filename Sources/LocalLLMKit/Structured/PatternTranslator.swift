/// Rewrites a JSON Schema `pattern` (an ECMA-262 regular expression) into the dialect that
/// llama.cpp's converter turns into an exact grammar for the JSON string.
///
/// - A pattern matches anywhere in the string unless anchored, so each alternative that
///   lacks `^` or `$` gets "any characters" on that side (llama.cpp drops such patterns).
/// - The grammar writes the JSON text of the string, so `"`, `\` and control characters
///   become their escapes, `.` and negated classes leave them out (a subset of the strings
///   the pattern allows), and `\d`, `\w`, `\s` become classes (llama.cpp knows none).
/// - Every repeated atom is wrapped in a group: llama.cpp repeats a whole run of escaped
///   literals otherwise (`a\.{3}` would repeat `a.`).
/// Lookarounds, backreferences, word boundaries, Unicode properties and anchors inside the
/// pattern cannot be expressed and throw ``Failure``.
struct PatternTranslator {
    /// Why a pattern cannot be enforced.
    struct Failure: Error {
        let reason: String
    }

    indirect enum Piece {
        case literal(UInt32)
        case characters(negated: Bool, ranges: [ClosedRange<UInt32>])
        case group([[Piece]])                                   // alternatives of sequences
        case repeated(Piece, minimum: Int, maximum: Int?)
    }

    private let scalars: [UInt32]
    private var index = 0

    /// The translated pattern, anchored with `^…$`.
    static func translate(_ pattern: String) throws -> String {
        guard pattern.unicodeScalars.count <= SchemaLimits.maximumPatternLength else {
            throw Failure(reason: "it is longer than \(SchemaLimits.maximumPatternLength) characters")
        }
        var translator = PatternTranslator(scalars: pattern.unicodeScalars.map(\.value))
        var alternatives: [String] = []
        repeat {
            let anchoredStart = translator.take("^")
            var sequence = try translator.sequence(depth: 0)
            let anchoredEnd = translator.take("$")
            // An unanchored side allows any characters around the match.
            let anything = Piece.repeated(translator.anyCharacter, minimum: 0, maximum: nil)
            if !anchoredStart { sequence.insert(anything, at: 0) }
            if !anchoredEnd { sequence.append(anything) }
            alternatives.append(sequence.map(Self.emit).joined())
        } while translator.take("|")
        guard translator.index == translator.scalars.count else {
            throw Failure(reason: translator.peek == "$" || translator.peek == "^"
                          ? "an anchor inside the pattern cannot be enforced" : "unbalanced parentheses")
        }
        return alternatives.count == 1 ? "^\(alternatives[0])$" : "^(?:\(alternatives.joined(separator: "|")))$"
    }

    private init(scalars: [UInt32]) {
        self.scalars = scalars
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? Unicode.Scalar(scalars[index]) : nil }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        index += 1
        return true
    }

    /// Characters allowed for `.` and around an unanchored match: no line terminators, no
    /// characters that JSON must escape.
    private static let lineTerminators: [ClosedRange<UInt32>] = [0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]
    private var anyCharacter: Piece { .characters(negated: true, ranges: Self.lineTerminators) }

    // MARK: Parsing

    /// Pieces up to `|`, `)`, `$` or the end.
    private mutating func sequence(depth: Int) throws -> [Piece] {
        var pieces: [Piece] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            if scalar == "$" {
                // Only an anchor that ends a top-level alternative is allowed.
                if depth == 0, index + 1 == scalars.count || Unicode.Scalar(scalars[index + 1]) == "|" { return pieces }
                throw Failure(reason: "an anchor inside the pattern cannot be enforced")
            }
            let atom = try self.atom(depth: depth)
            pieces.append(try quantified(atom))
        }
        return pieces
    }

    private mutating func quantified(_ atom: Piece) throws -> Piece {
        var bounds: (Int, Int?)?
        switch peek {
        case "*": index += 1; bounds = (0, nil)
        case "+": index += 1; bounds = (1, nil)
        case "?": index += 1; bounds = (0, 1)
        case "{": bounds = try braces()
        default: break
        }
        guard let (minimum, maximum) = bounds else { return atom }
        _ = take("?")                                           // lazy: the same strings
        for count in [minimum, maximum ?? 0] where count > SchemaLimits.maximumRepetition {
            throw Failure(reason: "the repetition count \(count) exceeds \(SchemaLimits.maximumRepetition)")
        }
        if let maximum, minimum > maximum { throw Failure(reason: "the repetition {\(minimum),\(maximum)} is empty") }
        return .repeated(atom, minimum: minimum, maximum: maximum)
    }

    /// `{n}`, `{n,}`, `{n,m}`; nil (and nothing read) when the brace is a plain character.
    private mutating func braces() throws -> (Int, Int?)? {
        let start = index
        index += 1
        func number() -> Int? {
            var digits = ""
            while let scalar = peek, ("0"..."9").contains(scalar), digits.count < 10 { digits.unicodeScalars.append(scalar); index += 1 }
            return Int(digits)
        }
        if let minimum = number() {
            if take("}") { return (minimum, minimum) }
            if take(",") {
                let maximum = number()
                if take("}") { return (minimum, maximum) }
            }
        }
        index = start
        return nil
    }

    private mutating func atom(depth: Int) throws -> Piece {
        let scalar = peek!
        index += 1
        switch scalar {
        case "(":
            guard depth < SchemaLimits.maximumPatternDepth else {
                throw Failure(reason: "groups are nested deeper than \(SchemaLimits.maximumPatternDepth) levels")
            }
            if take("?") {
                if take(":") {
                } else if peek == "<", index + 1 < scalars.count, !["=", "!"].contains(Unicode.Scalar(scalars[index + 1])) {
                    while let next = peek, next != ">" { index += 1 }                  // a named group: just a group
                    guard take(">") else { throw Failure(reason: "an unterminated group name") }
                } else {
                    throw Failure(reason: "lookahead and lookbehind cannot be enforced")
                }
            }
            var alternatives = [try sequence(depth: depth + 1)]
            while take("|") { alternatives.append(try sequence(depth: depth + 1)) }
            guard take(")") else { throw Failure(reason: "unbalanced parentheses") }
            return .group(alternatives)
        case "[": return try characterClass()
        case ".": return anyCharacter
        case "\\": return try escape()
        case "^": throw Failure(reason: "an anchor inside the pattern cannot be enforced")
        case "*", "+", "?": throw Failure(reason: "nothing to repeat before \(scalar)")
        default: return .literal(scalar.value)
        }
    }

    private mutating func escape() throws -> Piece {
        guard let scalar = peek else { throw Failure(reason: "a trailing backslash") }
        index += 1
        if let ranges = Self.shorthand(scalar) { return .characters(negated: false, ranges: ranges) }
        switch scalar {
        case "D", "W", "S": return .characters(negated: true, ranges: Self.shorthand(Unicode.Scalar(scalar.value + 32)!)!)
        case "b", "B": throw Failure(reason: "word boundaries (\\\(scalar)) cannot be enforced")
        case "1"..."9", "k": throw Failure(reason: "backreferences cannot be enforced")
        case "p", "P": throw Failure(reason: "Unicode property classes (\\\(scalar)) are not supported")
        default: return .literal(try escapedCharacter(scalar))
        }
    }

    /// The character of an escape other than a class shorthand.
    private mutating func escapedCharacter(_ scalar: Unicode.Scalar) throws -> UInt32 {
        switch scalar {
        case "n": return 0x0A
        case "r": return 0x0D
        case "t": return 0x09
        case "f": return 0x0C
        case "v": return 0x0B
        case "0": return 0
        case "x", "u":
            let count = scalar == "x" ? 2 : 4
            guard index + count <= scalars.count,
                  let value = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + count)].compactMap(Unicode.Scalar.init))), radix: 16)
            else { throw Failure(reason: "a malformed \\\(scalar) escape") }
            index += count
            return value
        case "c": throw Failure(reason: "control escapes (\\c) are not supported")
        default:
            guard !scalar.properties.isAlphabetic else { throw Failure(reason: "the escape \\\(scalar) is not supported") }
            return scalar.value                                 // \. \/ \- …: the character itself
        }
    }

    /// `\d`, `\w`, `\s` as ranges.
    private static func shorthand(_ scalar: Unicode.Scalar) -> [ClosedRange<UInt32>]? {
        switch scalar {
        case "d": return [0x30...0x39]
        case "w": return [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
        case "s": return [0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
                          0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF]
        default: return nil
        }
    }

    private mutating func characterClass() throws -> Piece {
        let negated = take("^")
        var ranges: [ClosedRange<UInt32>] = []
        while true {
            guard let scalar = peek else { throw Failure(reason: "an unterminated character class") }
            index += 1
            if scalar == "]" { break }                          // as in ECMA-262, `[]` is empty
            var lower: UInt32
            if scalar == "\\" {
                guard let escaped = peek else { throw Failure(reason: "a trailing backslash") }
                index += 1
                if let shorthand = Self.shorthand(escaped) { ranges += shorthand; continue }
                if ["D", "W", "S"].contains(escaped) { throw Failure(reason: "\\\(escaped) inside a class is not supported") }
                lower = escaped == "b" ? 0x08 : try escapedCharacter(escaped)
            } else {
                lower = scalar.value
            }
            if peek == "-", index + 1 < scalars.count, Unicode.Scalar(scalars[index + 1]) != "]" {
                index += 1
                let upperScalar = peek!
                index += 1
                var upper = upperScalar.value
                if upperScalar == "\\" {
                    guard let escaped = peek else { throw Failure(reason: "a trailing backslash") }
                    index += 1
                    guard Self.shorthand(escaped) == nil else { throw Failure(reason: "a class shorthand cannot end a range") }
                    upper = escaped == "b" ? 0x08 : try escapedCharacter(escaped)
                }
                guard lower <= upper else { throw Failure(reason: "the range is out of order") }
                ranges.append(lower...upper)
                lower = upper
                continue
            }
            ranges.append(lower...lower)
        }
        if ranges.isEmpty && !negated { throw Failure(reason: "the empty class [] matches nothing") }
        return .characters(negated: negated, ranges: ranges)
    }
}
