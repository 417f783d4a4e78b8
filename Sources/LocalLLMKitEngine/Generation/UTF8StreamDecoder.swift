/// Turns a stream of byte pieces (token pieces can end inside a multi-byte
/// character) into text, never emitting a broken character.
///
/// The concatenation of everything `decode` and `finish` return equals
/// `String(decoding: allBytes, as: UTF8.self)`: invalid bytes become U+FFFD
/// exactly as Swift's own decoding does.
package struct UTF8StreamDecoder: Sendable {
    private var pending: [UInt8] = []

    /// Creates an empty decoder.
    public init() {}

    /// Adds bytes and returns the text that is now complete.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> String {
        pending.append(contentsOf: bytes)
        let cut = Self.completePrefixLength(of: pending)
        guard cut > 0 else { return "" }
        let text = String(decoding: pending[..<cut], as: UTF8.self)
        pending.removeFirst(cut)
        return text
    }

    /// Returns whatever is left, with an unfinished character as U+FFFD.
    public mutating func finish() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Whether bytes of an unfinished character are held back.
    public var hasPendingBytes: Bool { !pending.isEmpty }

    /// The length of the longest prefix that does not end inside a character that
    /// later bytes could still complete.
    package static func completePrefixLength(of bytes: [UInt8]) -> Int {
        // Look back at most 3 bytes for the lead byte of the last character.
        var index = bytes.count - 1
        var continuationCount = 0
        while index >= 0 && continuationCount < 3 && bytes[index] & 0xC0 == 0x80 {
            continuationCount += 1
            index -= 1
        }
        guard index >= 0 else { return bytes.count }
        let lead = bytes[index]
        let expected: Int
        switch lead {
        case 0xC2...0xDF: expected = 2
        case 0xE0...0xEF: expected = 3
        case 0xF0...0xF4: expected = 4
        default: return bytes.count          // ASCII or a byte that starts nothing: decode all
        }
        return continuationCount + 1 < expected ? index : bytes.count
    }
}
