import Foundation

/// An image (or an audio clip) that a message carries to a model with a projector.
///
/// ```swift
/// let photo = try MediaAttachment.image(contentsOf: URL(filePath: "cat.png"))
/// let reply = try await conversation.respond(to: "What is in this picture?", attachments: [photo])
/// ```
///
/// The bytes are kept as given; they are checked (size, declared pixels, format) and decoded
/// only when a prompt is built for a model, against that model's ``Limits``.
public struct MediaAttachment: Sendable, Hashable {
    /// How the medium is given.
    public enum Content: Sendable, Hashable {
        /// An encoded image (PNG, JPEG, BMP or GIF) or audio clip (WAV, MP3 or FLAC).
        case encoded(Data)
        /// Raw pixels: 3 bytes (red, green, blue) per pixel, row by row.
        case pixels(rgb: Data, width: Int, height: Int)
    }

    /// What it holds.
    public var content: Content

    /// An attachment of `content`.
    public init(content: Content) {
        self.content = content
    }

    /// An encoded image (PNG, JPEG, BMP or GIF).
    public static func image(_ data: Data) -> MediaAttachment {
        MediaAttachment(content: .encoded(data))
    }

    /// An image of `width` × `height` pixels given as RGB bytes, row by row.
    public static func image(rgb: Data, width: Int, height: Int) -> MediaAttachment {
        MediaAttachment(content: .pixels(rgb: rgb, width: width, height: height))
    }

    /// An encoded audio clip (WAV, MP3 or FLAC), for a projector that takes audio.
    public static func audio(_ data: Data) -> MediaAttachment {
        MediaAttachment(content: .encoded(data))
    }

    /// The image (or clip) in the file at `url`, read whole; a file larger than `limit` bytes is
    /// refused before it is read.
    /// - Throws: ``Error/unreadable(path:reason:)`` or ``Error/tooManyBytes(bytes:limit:)``.
    public static func image(contentsOf url: URL, limit: Int = Limits.default.bytes) throws -> MediaAttachment {
        MediaAttachment(content: .encoded(try Self.read(url, limit: limit)))
    }

    /// The size of what it holds, in bytes.
    public var byteCount: Int {
        switch content {
        case .encoded(let data): data.count
        case .pixels(let rgb, _, _): rgb.count
        }
    }

    private static func read(_ url: URL, limit: Int) throws -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw Error.unreadable(path: url.path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Error.unreadable(path: url.path, reason: "not a regular file")
        }
        guard Int(info.st_size) <= limit else { throw Error.tooManyBytes(bytes: Int(info.st_size), limit: limit) }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw Error.unreadable(path: url.path, reason: "it cannot be opened")
        }
        defer { try? handle.close() }
        // Read one byte more than allowed: a file that grew since stat is still refused.
        let data = (try? handle.read(upToCount: limit == .max ? limit : limit + 1)) ?? Data()
        guard data.count <= limit else { throw Error.tooManyBytes(bytes: data.count, limit: limit) }
        return data
    }
}
