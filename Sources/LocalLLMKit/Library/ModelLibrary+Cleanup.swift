import Foundation

extension ModelLibrary {
    /// A download that stopped part-way; its bytes are kept so that downloading the same URL
    /// again resumes.
    public struct PartialDownload: Sendable, Equatable {
        /// The URL it came from, when its resume data says (without a user name and password).
        public var url: String?
        /// The bytes kept.
        public var bytes: Int64
        /// The partial file.
        public var file: URL
    }

    /// What ``removeLeftovers()`` did.
    public struct Cleanup: Sendable, Equatable {
        /// The files and folders removed.
        public var removed: [URL] = []
        /// The bytes freed.
        public var freedBytes: Int64 = 0
        /// Leftovers left alone because a download or import in progress (in this or another
        /// process) holds them.
        public var inUse: [URL] = []
    }

    /// The partial downloads kept for resuming, largest first.
    public func partialDownloads() -> [PartialDownload] {
        let folder = root.appending(path: ".downloads")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".partial") }.compactMap { name in
            let files = PartialDownloadFiles(folder: folder, key: String(name.dropLast(".partial".count)))
            let bytes = LibraryFiles.size(of: files.partial)
            guard bytes > 0 else { return nil }
            let data = try? LibraryFiles.readSmallFile(at: files.validator, limit: 64 << 10)
            let validator = data.flatMap { try? JSONDecoder().decode(ResumeValidator.self, from: $0) }
            let url = validator.map { DownloadCredential.redacted($0.url) }     // as an older version may have stored it
            return PartialDownload(url: url, bytes: bytes, file: files.partial)
        }
        .sorted { ($0.bytes, $0.file.path) > ($1.bytes, $1.file.path) }
    }

    /// Removes what failed or interrupted work left behind: partial downloads (with their
    /// resume data), unfinished imports and downloads (`.staging`), and the rest of
    /// interrupted deletes (`.trash-*`). Work in progress, in this or another process, holds
    /// a lock on its files and is left alone. Models are never touched.
    /// - Throws: ``ModelLibrary/Error/storageFailed(path:reason:)`` when something cannot be removed.
    @discardableResult
    public func removeLeftovers() throws -> Cleanup {
        var cleanup = Cleanup()
        func remove(_ url: URL) throws {
            let bytes = Self.treeSize(url)
            try LibraryFiles.removeTree(at: url)
            cleanup.removed.append(url)
            cleanup.freedBytes += bytes
        }
        let downloads = root.appending(path: ".downloads")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []
        let keys = Set(names.map { String($0.prefix { $0 != "." }) })
        for key in keys.sorted() {
            let files = PartialDownloadFiles(folder: downloads, key: key)
            let owned = names.filter { $0 == key || $0.hasPrefix(key + ".") }.map { downloads.appending(path: $0) }
            // Taking the download's lock (creating it if needed) keeps a new download of that URL
            // from starting while its files go.
            guard let lock = FileLock.acquireIfFree(files.lock, creating: true) else {
                cleanup.inUse += owned.filter { $0 != files.lock }
                continue
            }
            defer { lock.releaseRemovingFile() }
            for url in owned where url != files.lock { try remove(url) }
        }
        for url in abandonedWork() {
            // Staging folders in use are locked; a trash folder is never in use, nor is a stray
            // file or link where a folder should be.
            if url.lastPathComponent.hasPrefix(".trash-") || LibraryFiles.kind(at: url) != .directory {
                try remove(url)
                continue
            }
            guard let lock = FileLock.acquireIfFree(url) else {
                cleanup.inUse.append(url)
                continue
            }
            defer { lock.release() }
            try remove(url)
        }
        return cleanup
    }

    /// Removes, quietly, the leftovers that need no asking: interrupted deletes, and staging
    /// folders that no process holds (a crashed import or download).
    func removeAbandonedWork() {
        for url in abandonedWork() {
            if url.lastPathComponent.hasPrefix(".trash-") || LibraryFiles.kind(at: url) != .directory {
                try? LibraryFiles.removeTree(at: url)
            } else if let lock = FileLock.acquireIfFree(url) {
                try? LibraryFiles.removeTree(at: url)
                lock.release()
            }
        }
    }

    /// The staging folders and `.trash-*` folders of the library.
    private func abandonedWork() -> [URL] {
        let manager = FileManager.default
        let trash = ((try? manager.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasPrefix(".trash-") }.map { root.appending(path: $0) }
        let stagingFolder = root.appending(path: ".staging")
        let staging = ((try? manager.contentsOfDirectory(atPath: stagingFolder.path)) ?? []).map { stagingFolder.appending(path: $0) }
        return trash + staging
    }

    /// The bytes of the regular files under `url` (links not followed).
    private static func treeSize(_ url: URL) -> Int64 {
        switch LibraryFiles.kind(at: url) {
        case .file:
            return LibraryFiles.size(of: url)
        case .directory:
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.reduce(0) { $0 + treeSize(url.appending(path: $1)) }
        default:
            return 0
        }
    }
}

/// The files of one URL's download in `.downloads`, named after the SHA-256 of the URL:
/// `KEY.partial` (the bytes so far), `KEY.validator` (the version they are of) and `KEY.lock`.
struct PartialDownloadFiles: Sendable {
    let url: URL?
    let partial: URL, validator: URL, lock: URL

    init(folder: URL, url: URL) {
        self.init(folder: folder, key: SHA256Digest.hex(of: Data(url.absoluteString.utf8)), url: url)
    }

    init(folder: URL, key: String, url: URL? = nil) {
        self.url = url
        partial = folder.appending(path: "\(key).partial")
        validator = folder.appending(path: "\(key).validator")
        lock = folder.appending(path: "\(key).lock")
    }

    /// The stored validator when the partial bytes can be resumed: they are in a regular file,
    /// their version is known and can be asked for (`If-Range`), and they are no more than
    /// the file's size. Otherwise the bytes are removed and nil returned.
    func resumableValidator(totalBytes: Int64?) -> ResumeValidator? {
        switch LibraryFiles.kind(at: partial) {
        case .missing, .file: break
        default: try? LibraryFiles.removeTree(at: partial)
        }
        guard let url, let stored = ResumeValidator.read(validator, for: url), stored.ifRange != nil,
              totalBytes == nil || stored.totalBytes == nil || totalBytes == stored.totalBytes,
              LibraryFiles.size(of: partial) <= (totalBytes ?? stored.totalBytes ?? .max) else {
            removeAll()
            return nil
        }
        return stored
    }

    /// Removes the partial bytes and their validator.
    func removeAll() {
        try? LibraryFiles.removeTree(at: partial)
        try? LibraryFiles.removeTree(at: validator)
    }

    /// After a failure, keeps the partial bytes only when they are worth resuming: some bytes,
    /// of a known version that can be asked for again.
    func removeIfNotResumable() {
        guard let url, LibraryFiles.size(of: partial) > 0, ResumeValidator.read(validator, for: url)?.ifRange != nil else {
            removeAll()
            return
        }
    }
}
