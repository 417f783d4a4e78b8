import Foundation

/// What identified the version of a file when its download began: stored next to the
/// partial file (`<key>.validator`) before any of its bytes, so that a resume can ask the
/// server for the rest of that same version only (`If-Range`), and bytes of two versions
/// are never joined.
struct ResumeValidator: Codable, Equatable, Sendable {
    /// The URL the bytes came from.
    var url: String
    /// The `ETag` of the first response.
    var entityTag: String?
    /// The `Last-Modified` of the first response.
    var lastModified: String?
    /// The whole size the first response announced.
    var totalBytes: Int64?

    enum CodingKeys: String, CodingKey {
        case url
        case entityTag = "etag"
        case lastModified = "last_modified"
        case totalBytes = "total_bytes"
    }

    /// The validator of a response that starts a download from byte 0.
    init(url: URL, response: TransferResult) {
        self.url = url.absoluteString
        self.entityTag = response.entityTag
        self.lastModified = response.lastModified
        self.totalBytes = response.totalBytes
    }

    /// The `If-Range` value: a strong ETag, else the Last-Modified date; nil when the server
    /// gave neither (such a download cannot be resumed safely, only started over).
    var ifRange: String? {
        if let entityTag, !entityTag.isEmpty, !entityTag.hasPrefix("W/") { return entityTag }
        if let lastModified, !lastModified.isEmpty { return lastModified }
        return nil
    }

    /// Whether a 206 response continues this version: the same validator, and the same size.
    /// A server that ignores `If-Range` but honours `Range` is caught here.
    func isContinued(by response: TransferResult) -> Bool {
        guard let ifRange else { return false }
        let answered = ifRange == entityTag ? response.entityTag : response.lastModified
        guard answered == ifRange else { return false }
        if let totalBytes, let total = response.totalBytes, total != totalBytes { return false }
        return true
    }

    /// The validator stored at `file` for `url`; nil when missing, damaged, or for another URL.
    static func read(_ file: URL, for url: URL) -> ResumeValidator? {
        guard let data = try? LibraryFiles.readSmallFile(at: file, limit: 64 << 10),
              let stored = try? JSONDecoder().decode(ResumeValidator.self, from: data),
              stored.url == url.absoluteString else { return nil }
        return stored
    }

    /// Stores the validator at `file`, atomically.
    func write(to file: URL) throws {
        try LibraryFiles.writeAtomically(JSONEncoder().encode(self), to: file)
    }
}
