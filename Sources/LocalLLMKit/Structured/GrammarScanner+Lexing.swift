/// The lexical pieces of GBNF, read as llama-grammar.cpp reads them (same escapes, same
/// UTF-8 decoding, same spacing and comments).
extension GrammarScanner {
    static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }

    static func isWordCharacter(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || byte == 45 || isDigit(byte)
    }

    func skipSpace(_ start: Int, newlines: Bool) -> Int {
        var position = start
        while true {
            switch bytes[position] {
            case 32, 9: position += 1
            case 35:                                                                                // "#" comment
                while bytes[position] != 0 && bytes[position] != 13 && bytes[position] != 10 { position += 1 }
            case 13 where newlines, 10 where newlines: position += 1
            default: return position
            }
        }
    }

    func parseName(_ start: Int) throws -> Int {
        var position = start
        while Self.isWordCharacter(bytes[position]) { position += 1 }
        guard position > start else { throw syntaxError("expecting a name", at: start) }
        return position
    }

    func parseCount(_ start: Int) throws -> (UInt64, Int) {
        var position = start
        var value: UInt64 = 0
        while Self.isDigit(bytes[position]) {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow, product <= UInt64.max - UInt64(bytes[position] - 48) else {
                throw syntaxError("the repetition count is too large", at: start)
            }
            value = product + UInt64(bytes[position] - 48)
            position += 1
        }
        guard position > start else { throw syntaxError("expecting an integer", at: start) }
        return (value, position)
    }

    func parseToken(_ start: Int) throws -> Int {
        guard bytes[start] == 60 else { throw syntaxError("expecting '<'", at: start) }
        var position = start + 1
        while bytes[position] != 0 && bytes[position] != 62 { position += 1 }
        guard bytes[position] == 62 else { throw syntaxError("expecting '>'", at: position) }
        return position + 1
    }

    /// One character of a literal or class: an escape or one UTF-8 sequence.
    func parseCharacter(_ start: Int) throws -> (UInt32, Int) {
        if bytes[start] == 92 {                                                                     // "\"
            switch bytes[start + 1] {
            case 120: return try parseHex(start + 2, digits: 2)                                     // x
            case 117: return try parseHex(start + 2, digits: 4)                                     // u
            case 85: return try parseHex(start + 2, digits: 8)                                      // U
            case 116: return (9, start + 2)
            case 114: return (13, start + 2)
            case 110: return (10, start + 2)
            case 92, 34, 91, 93, 45: return (UInt32(bytes[start + 1]), start + 2)
            default: throw syntaxError("unknown escape", at: start)
            }
        }
        guard bytes[start] != 0 else { throw syntaxError("unexpected end of input", at: start) }
        let lengths = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4]
        let length = lengths[Int(bytes[start] >> 4)]
        var value = UInt32(bytes[start]) & ((1 << (8 - length)) - 1)
        var position = start + 1
        while position < start + length && bytes[position] != 0 {
            value = (value << 6) + (UInt32(bytes[position]) & 0x3F)
            position += 1
        }
        return (value, position)
    }

    private func parseHex(_ start: Int, digits: Int) throws -> (UInt32, Int) {
        var value: UInt32 = 0
        var position = start
        while position < start + digits, let digit = Self.hexValue(bytes[position]) {
            value = value << 4 + digit
            position += 1
        }
        guard position == start + digits else { throw syntaxError("expecting \(digits) hex digits", at: start) }
        return (value, position)
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 48...57: return UInt32(byte - 48)
        case 97...102: return UInt32(byte - 87)
        case 65...70: return UInt32(byte - 55)
        default: return nil
        }
    }
}
