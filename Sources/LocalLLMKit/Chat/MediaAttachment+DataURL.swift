import Foundation

extension MediaAttachment {
    /// Why a data URL cannot be read as an attachment.
    struct DataURLError: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// The attachment in a `data:` URL (`data:image/png;base64,…`), as OpenAI's `image_url`
    /// parts carry images.
    init(dataURL: String) throws {
        guard dataURL.hasPrefix("data:"), let comma = dataURL.firstIndex(of: ",") else {
            throw DataURLError(description: "only data: URLs (data:image/png;base64,...) are read")
        }
        let header = dataURL[dataURL.index(dataURL.startIndex, offsetBy: 5)..<comma]
        guard header.hasSuffix(";base64") else { throw DataURLError(description: "the data URL is not base64") }
        guard let data = Data(base64Encoded: String(dataURL[dataURL.index(after: comma)...]), options: .ignoreUnknownCharacters) else {
            throw DataURLError(description: "the data URL's base64 is invalid")
        }
        self = .image(data)
    }

    /// A `data:` URL of the attachment: its own bytes for an encoded one, a BMP for pixels.
    var dataURL: String {
        switch content {
        case .encoded(let data):
            let type = (try? MediaHeader.read(data)).map { header -> String in
                switch header.format {
                case .png: "image/png"
                case .jpeg: "image/jpeg"
                case .bmp: "image/bmp"
                case .gif: "image/gif"
                case .wav: "audio/wav"
                case .mp3: "audio/mpeg"
                case .flac: "audio/flac"
                }
            } ?? "application/octet-stream"
            return "data:\(type);base64,\(data.base64EncodedString())"
        case .pixels(let rgb, let width, let height):
            return "data:image/bmp;base64,\(Self.bitmapFile(rgb: rgb, width: width, height: height).base64EncodedString())"
        }
    }

    /// A 24-bit BMP file of RGB pixels (rows bottom-up, BGR, padded to 4 bytes).
    static func bitmapFile(rgb: Data, width: Int, height: Int) -> Data {
        let stride = (width * 3 + 3) / 4 * 4
        var file = Data()
        func le32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { file.append(contentsOf: $0) } }
        func le16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { file.append(contentsOf: $0) } }
        file.append(contentsOf: Array("BM".utf8))
        le32(54 + stride * height); le32(0); le32(54)
        le32(40); le32(width); le32(height); le16(1); le16(24); le32(0); le32(stride * height); le32(2835); le32(2835); le32(0); le32(0)
        let pixels = [UInt8](rgb)
        for row in (0..<height).reversed() {
            var line = [UInt8](repeating: 0, count: stride)
            for column in 0..<width where (row * width + column) * 3 + 2 < pixels.count {
                let source = (row * width + column) * 3
                line[column * 3] = pixels[source + 2]
                line[column * 3 + 1] = pixels[source + 1]
                line[column * 3 + 2] = pixels[source]
            }
            file.append(contentsOf: line)
        }
        return file
    }
}
