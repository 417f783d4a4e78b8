extension PatternTranslator {
    /// Characters that a JSON string can hold only as escapes.
    private static let escapedInJSON: [ClosedRange<UInt32>] = [0x00...0x1F, 0x22...0x22, 0x5C...0x5C]
    /// Characters with a meaning in llama.cpp's pattern dialect outside classes.
    private static let special: Set<UInt32> = Set("^$.[]()|{}*+?".unicodeScalars.map(\.value))

    /// The piece in llama.cpp's pattern dialect, writing the JSON text of the string.
    static func emit(_ piece: Piece) -> String {
        switch piece {
        case .literal(let value):
            return literal(value)
        case .characters(let negated, let ranges):
            return characters(negated: negated, ranges)
        case .group(let alternatives):
            return "(?:" + alternatives.map { $0.map(emit).joined() }.joined(separator: "|") + ")"
        case .repeated(let atom, let minimum, let maximum):
            let quantifier: String
            switch (minimum, maximum) {
            case (0, nil): quantifier = "*"
            case (1, nil): quantifier = "+"
            case (_, nil): quantifier = "{\(minimum),}"
            case (0, 1?): quantifier = "?"
            case (_, let maximum?) where maximum == minimum: quantifier = "{\(minimum)}"
            case (_, let maximum?): quantifier = "{\(minimum),\(maximum)}"
            }
            return "(?:" + emit(atom) + ")" + quantifier
        }
    }

    /// One character as the JSON text writes it: escapes for `"`, `\` and controls. In the
    /// dialect, `\\` is a backslash and `\"` a quote, so `\\\"` writes the JSON escape `\"`.
    private static func literal(_ value: UInt32) -> String {
        switch value {
        case 0x22: return #"\\\""#
        case 0x5C: return #"\\\\"#
        case 0x0A: return #"\\n"#
        case 0x0D: return #"\\r"#
        case 0x09: return #"\\t"#
        case 0x08: return #"\\b"#
        case 0x0C: return #"\\f"#
        case 0x00..<0x20: return #"\\u00"# + hex(value, digits: 2)
        case 0x7F: return #"\x7F"#
        case _ where special.contains(value): return "\\" + String(Unicode.Scalar(value)!)
        default:
            guard let scalar = Unicode.Scalar(value) else { return #"\\u"# + hex(value, digits: 4) }    // a lone surrogate
            return String(scalar)
        }
    }

    /// A class: characters that JSON escapes are left out of negated classes, and written
    /// as their escapes when a positive class names them.
    private static func characters(negated: Bool, _ ranges: [ClosedRange<UInt32>]) -> String {
        if negated { return "[^" + (ranges + escapedInJSON).map(item).joined() + "]" }
        var plain: [ClosedRange<UInt32>] = []
        var escaped = Set<UInt32>()
        for range in ranges {
            var lower = range.lowerBound
            for excluded in escapedInJSON where excluded.overlaps(range) {
                if lower < excluded.lowerBound { plain.append(lower...(excluded.lowerBound - 1)) }
                let from = max(lower, excluded.lowerBound), to = min(range.upperBound, excluded.upperBound)
                if from <= to { escaped.formUnion(from...to) }
                lower = max(lower, excluded.upperBound + 1)
            }
            if lower <= range.upperBound { plain.append(lower...range.upperBound) }
        }
        let parts = (plain.isEmpty ? [] : ["[" + plain.map(item).joined() + "]"]) + escaped.sorted().map(literal)
        return parts.count == 1 ? parts[0] : "(?:" + parts.joined(separator: "|") + ")"
    }

    private static func item(_ range: ClosedRange<UInt32>) -> String {
        range.lowerBound == range.upperBound ? encoded(range.lowerBound) : encoded(range.lowerBound) + "-" + encoded(range.upperBound)
    }

    /// A class character: letters and digits as they are, everything else as a hex escape.
    private static func encoded(_ value: UInt32) -> String {
        switch value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return String(Unicode.Scalar(value)!)
        case ..<0x80: return "\\x" + hex(value, digits: 2)
        case ...0xFFFF: return "\\u" + hex(value, digits: 4)
        default: return "\\U" + hex(value, digits: 8)
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
