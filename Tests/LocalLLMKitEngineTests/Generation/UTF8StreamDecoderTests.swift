import Testing
@testable import LocalLLMKitEngine

@Suite("UTF-8 stream decoder")
struct UTF8StreamDecoderTests {
    static let samples = ["日本語のテキスト", "한국어 문장", "emoji 👩‍👩‍👧 and 🇰🇷 flags", "mixed ASCII, 中文, é, ß, 𝄞"]

    @Test("never emits a broken character, whatever the split", arguments: samples)
    func everySplit(text: String) {
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var decoder = UTF8StreamDecoder()
            let first = decoder.decode(bytes[..<cut])
            #expect(!first.unicodeScalars.contains("\u{FFFD}"), "cut at \(cut) produced a replacement character")
            let second = decoder.decode(bytes[cut...])
            #expect(first + second + decoder.finish() == text)
        }
    }

    @Test("byte by byte, each chunk is whole characters", arguments: samples)
    func byteByByte(text: String) {
        var decoder = UTF8StreamDecoder()
        var output = ""
        for byte in text.utf8 {
            let chunk = decoder.decode([byte])
            #expect(!chunk.unicodeScalars.contains("\u{FFFD}"))
            output += chunk
        }
        #expect(decoder.hasPendingBytes == false)
        #expect(output + decoder.finish() == text)
    }

    @Test("invalid bytes decode exactly as Swift's own decoding, for random splits")
    func invalidBytesMatchSwift() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                [UInt8.random(in: 0...255, using: &generator), 0xE6, 0x97, 0xA5, 0xF0, 0x9F, 0x98, 0x80, 0x41]
                    .randomElement(using: &generator)!
            }
            var decoder = UTF8StreamDecoder()
            var output = ""
            var index = 0
            while index < bytes.count {
                let length = Int.random(in: 1...4, using: &generator)
                output += decoder.decode(bytes[index..<min(index + length, bytes.count)])
                index += length
            }
            output += decoder.finish()
            #expect(output == String(decoding: bytes, as: UTF8.self), "bytes: \(bytes)")
        }
    }

    @Test("an unfinished character at the end becomes U+FFFD")
    func unfinishedTail() {
        var decoder = UTF8StreamDecoder()
        #expect(decoder.decode([0x41, 0xE6, 0x97]) == "A")
        #expect(decoder.hasPendingBytes)
        #expect(decoder.finish() == "\u{FFFD}")
    }
}
