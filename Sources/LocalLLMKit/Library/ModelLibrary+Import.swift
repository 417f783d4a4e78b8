import Foundation

extension ModelLibrary {
    /// Adds a local GGUF file to the library, by copy (the default) or by move. The
    /// header is validated and the metadata read first; the SHA-256 is computed in chunks,
    /// off the caller's actor. Importing the same file twice gives one entry. A symbolic link
    /// (as in the Hugging Face cache) is followed: its target is copied, never moved, and with
    /// `moving` only the link is removed.
    /// - Throws: ``LLMKitError/invalidModelFile(path:reason:)``, ``LLMKitError/insufficientDiskSpace(path:needed:available:)``
    ///   or ``LLMKitError/libraryFailure(path:reason:)``.
    public func importModel(at url: URL, moving: Bool = false, name: String? = nil) async throws -> ModelRecord {
        let target = url.resolvingSymlinksInPath()
        let isLink = target.path != url.standardizedFileURL.path
        let file = try GGUFFile(contentsOf: target)
        let fileName = try Self.safeFileName(url.lastPathComponent)
        if !moving || isLink { try ensureSpace(for: file.fileSize) }
        let sha256 = try await Self.sha256(of: target)
        let record = ModelRecord(file: file, sha256: sha256, name: name, fileName: fileName, sourceURLs: [])
        let installed = try install(target, moving: moving && !isLink, record: record)
        if moving && isLink { try? FileManager.default.removeItem(at: url) }
        return installed
    }

    /// The SHA-256 of a file, computed on a background task that stops when the caller is cancelled.
    static func sha256(of url: URL) async throws -> String {
        let task = Task.detached(priority: .utility) { try SHA256Digest.file(at: url) }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Throws unless `bytes` (plus a small margin) fit on the library's volume.
    func ensureSpace(for bytes: Int64) throws {
        guard let available = freeSpace(root) else { return }
        let needed = bytes + 16 << 20
        if available < needed {
            throw LLMKitError.insufficientDiskSpace(path: root.path, needed: needed, available: available)
        }
    }

    /// A file name with no folder parts: no `/`, no `..`, not hidden.
    static func safeFileName(_ name: String) throws -> String {
        guard !name.isEmpty, !name.contains("/"), !name.contains("\\"), name != ".", name != "..", !name.hasPrefix("."),
              !name.contains("\0") else {
            throw LLMKitError.invalidModelReference(name, reason: "a file name must not contain folders, `..` or a leading dot")
        }
        return name
    }
}
