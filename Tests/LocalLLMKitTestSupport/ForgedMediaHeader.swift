import Foundation

/// The first bytes of image files of any declared size, with no pixels after them: enough for
/// the header reader, which bounds an attachment before anything decodes it.
package enum ForgedMediaHeader {
    /// A PNG signature and `IHDR` chunk declaring `width` × `height`.
    package static func png(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data += Data("IHDR".utf8)
        for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { data += $0 } }
        data += Data([8, 2, 0, 0, 0, 0, 0, 0, 0])
        return data
    }

    /// A JPEG with an APP0 segment, then a progressive frame header declaring `width` × `height`.
    package static func jpeg(width: UInt16, height: UInt16) -> Data {
        var data = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data(repeating: 0, count: 14)   // APP0, 16 bytes
        data += Data([0xFF, 0xC2, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        return data + Data(repeating: 0, count: 12)
    }
}
