import Foundation
import Testing
@testable import LocalLLMKitEngine

/// The header reader that bounds an attachment before anything decodes it (model-free).
@Suite("Media headers")
struct MediaHeaderTests {
    @Test("PNG, JPEG (after other segments), BMP and GIF declare their sizes; WAV, MP3 and FLAC are sounds")
    func knownFormats() throws {
        #expect(try MediaHeader.read(ForgedMediaHeader.png(width: 64, height: 48)) == MediaHeader(format: .png, width: 64, height: 48))
        #expect(try MediaHeader.read(ForgedMediaHeader.jpeg(width: 640, height: 480)) == MediaHeader(format: .jpeg, width: 640, height: 480))
        var bmp = Data("BM".utf8) + Data(repeating: 0, count: 12)
        for value: UInt32 in [40, 80, UInt32(bitPattern: -60)] { withUnsafeBytes(of: value.littleEndian) { bmp += $0 } }
        #expect(try MediaHeader.read(bmp + Data(repeating: 0, count: 8)) == MediaHeader(format: .bmp, width: 80, height: 60))
        #expect(try MediaHeader.read(Data("GIF89a".utf8) + Data([0x2C, 0x01, 0xC8, 0x00])) == MediaHeader(format: .gif, width: 300, height: 200))
        #expect(try MediaHeader.read(Data("RIFF\0\0\0\0WAVEfmt ".utf8)).format == .wav)
        #expect(try MediaHeader.read(Data("fLaC".utf8)).format.isAudio)
        #expect(try MediaHeader.read(Data("ID3\u{4}".utf8)).format == .mp3)
    }

    @Test("hostile headers are refused with a reason, never read past their end",
          arguments: [
            (Data(), "it is empty"),
            (Data("not an image at all".utf8), "not a PNG, JPEG, BMP or GIF image"),
            (ForgedMediaHeader.png(width: 64, height: 48).prefix(20), "a PNG without its IHDR header"),
            (ForgedMediaHeader.png(width: 0, height: 48), "a PNG of 0 × 48 pixels"),
            (Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08]), "a JPEG without a frame header"),
            (Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]), "a JPEG segment of length 1"),
            (Data([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]), "a JPEG without a frame header"),
            (Data("BM".utf8) + Data(repeating: 0, count: 10), "a BMP cut short"),
            (Data("GIF89a".utf8), "a GIF cut short"),
          ])
    func hostileHeaders(bytes: Data, reason: String) {
        #expect(throws: MediaHeader.HeaderProblem.self) { try MediaHeader.read(bytes) }
        do {
            _ = try MediaHeader.read(bytes)
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test("a JPEG of many segments is walked in linear time, and 30,000 × 30,000 declared is read, not allocated")
    func largeDeclarations() throws {
        var data = Data([0xFF, 0xD8])
        for _ in 0..<100_000 { data += Data([0xFF, 0xFE, 0x00, 0x02]) }       // empty comments
        data += ForgedMediaHeader.jpeg(width: 30_000, height: 30_000).dropFirst(2)
        #expect(try MediaHeader.read(data) == MediaHeader(format: .jpeg, width: 30_000, height: 30_000))
        #expect(try MediaHeader.read(ForgedMediaHeader.png(width: 30_000, height: 30_000)).width == 30_000)
    }
}
