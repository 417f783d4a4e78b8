import Foundation

/// What the first bytes of an attachment say it is, read without decoding it: the format and,
/// for an image, the size it declares. Only these formats reach the decoder, and only once
/// their declared size is within bounds; the reading is linear in the bytes and never allocates
/// by what they declare.
package struct MediaHeader: Sendable, Equatable {
    /// A format that can be decoded.
    package enum Format: String, Sendable, Equatable {
        case png = "PNG", jpeg = "JPEG", bmp = "BMP", gif = "GIF"
        case wav = "WAV", mp3 = "MP3", flac = "FLAC"

        /// Whether it is a sound, not a picture.
        package var isAudio: Bool { self == .wav || self == .mp3 || self == .flac }
    }

    package var format: Format
    /// The declared width and height (images only).
    package var width = 0
    package var height = 0

    /// Reads `bytes`' header.
    /// - Throws: a reason (a plain string) when the bytes are no known format, or a known one
    ///   cut short or declaring no size.
    package static func read(_ bytes: Data) throws(HeaderProblem) -> MediaHeader {
        let b = [UInt8](bytes.prefix(64))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard b.count >= 24, starts(Array("IHDR".utf8), at: 12) else { throw HeaderProblem("a PNG without its IHDR header") }
            return try sized(.png, width: Int(bigEndian32(b, 16)), height: Int(bigEndian32(b, 20)))
        }
        if starts([0xFF, 0xD8, 0xFF]) { return try jpeg(bytes) }
        if starts(Array("BM".utf8)) {
            guard b.count >= 26 else { throw HeaderProblem("a BMP cut short") }
            let headerSize = littleEndian32(b, 14)
            if headerSize == 12 {
                return try sized(.bmp, width: Int(littleEndian16(b, 18)), height: Int(littleEndian16(b, 20)))
            }
            let width = Int(Int32(bitPattern: littleEndian32(b, 18)))
            let height = Int(Int32(bitPattern: littleEndian32(b, 22)))
            guard width > 0, height != Int(Int32.min) else { throw HeaderProblem("a BMP with a width of \(width)") }
            return try sized(.bmp, width: width, height: abs(height))
        }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            guard b.count >= 10 else { throw HeaderProblem("a GIF cut short") }
            return try sized(.gif, width: Int(littleEndian16(b, 6)), height: Int(littleEndian16(b, 8)))
        }
        if starts(Array("RIFF".utf8)) && starts(Array("WAVE".utf8), at: 8) { return MediaHeader(format: .wav) }
        if starts(Array("fLaC".utf8)) { return MediaHeader(format: .flac) }
        if starts(Array("ID3".utf8)) || (b.count >= 2 && b[0] == 0xFF && b[1] & 0xE0 == 0xE0) { return MediaHeader(format: .mp3) }
        throw HeaderProblem(bytes.isEmpty ? "it is empty" : "not a PNG, JPEG, BMP or GIF image, nor a WAV, MP3 or FLAC clip")
    }

    /// A reason why a header cannot be used.
    package struct HeaderProblem: Error, Equatable {
        package var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func sized(_ format: Format, width: Int, height: Int) throws(HeaderProblem) -> MediaHeader {
        guard width > 0, height > 0 else {
            throw HeaderProblem("a \(format.rawValue) of \(width) × \(height) pixels")
        }
        return MediaHeader(format: format, width: width, height: height)
    }

    /// The size a JPEG's first frame header (SOFn) declares, found by walking its segments.
    private static func jpeg(_ data: Data) throws(HeaderProblem) -> MediaHeader {
        do {
            let bytes = [UInt8](data)
            var offset = 2
            while offset + 1 < bytes.count {
                guard bytes[offset] == 0xFF else { throw HeaderProblem("a JPEG whose segments do not line up") }
                let marker = bytes[offset + 1]
                if marker == 0xFF { offset += 1; continue }         // fill byte
                if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
                if marker == 0xD9 || marker == 0xDA { break }       // end of image, or scan data before any frame
                guard offset + 3 < bytes.count else { break }
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                guard length >= 2 else { throw HeaderProblem("a JPEG segment of length \(length)") }
                let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
                if isFrame {
                    guard offset + 8 < bytes.count else { break }
                    let height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                    let width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
                    return try sized(.jpeg, width: width, height: height)
                }
                offset += 2 + length
            }
            throw HeaderProblem("a JPEG without a frame header")
        }
    }

    private static func bigEndian32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    private static func littleEndian32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    private static func littleEndian16(_ b: [UInt8], _ at: Int) -> UInt16 {
        UInt16(b[at]) | UInt16(b[at + 1]) << 8
    }
}
