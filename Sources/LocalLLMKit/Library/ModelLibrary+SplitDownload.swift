import Foundation

extension ModelLibrary {
    /// Downloads every part of a split model (``DownloadRequest/split``), then installs them
    /// together in the model's one folder; the record's file is part 1, its size the total.
    ///
    /// Each part goes through the same machinery as a single file: its own `.partial` file
    /// under its own lock (held until the whole model is installed), resumed with `Range` and
    /// `If-Range`, each mirror tried in turn. A part is verified against the size its server
    /// announced; then all parts, in a staging folder, against their split metadata
    /// (``GGUFFile/init(modelAt:)``). The record's SHA-256 is part 1's.
    func downloadSplit(_ request: ModelLibrary.DownloadRequest, split: GGUFFile.SplitName, in folder: URL,
                       transfer: DownloadTransfer) async throws -> ModelLibrary.Addition {
        var held: [(files: PartialDownloadFiles, lock: FileLock)] = []
        defer {
            for part in held.reversed() {
                part.files.removeIfNotResumable()
                part.lock.releaseRemovingFile()
            }
        }
        var fetched: [(url: URL, files: PartialDownloadFiles, bytes: Int64)] = []
        var bytesBefore: Int64 = 0
        for part in 1...split.count {
            var failures: [String] = []
            var done: (URL, PartialDownloadFiles, Int64)?
            for url in request.urls(ofPart: part) where done == nil {
                try Task.checkCancellation()
                let files = PartialDownloadFiles(folder: folder, url: url)
                let waitStart = Date(), before = bytesBefore
                let lock = try await FileLock.acquire(files.lock) {
                    transfer.publish(ModelLibrary.Download.Progress(bytes: before + LibraryFiles.size(of: files.partial), total: nil,
                                                                    bytesPerSecond: 0, isWaiting: true))
                }
                held.append((files, lock))
                // Another download of the same model, which held part 1's lock, may have registered it.
                if part == 1, lock.waited, let existing = try models().first(where: {
                    $0.sourceURLs.contains(url.absoluteString) && $0.addedAt >= waitStart.addingTimeInterval(-1)
                }) {
                    return ModelLibrary.Addition(record: existing, wasAlreadyInLibrary: true)
                }
                do {
                    let bytes = try await fetchPart(url, credential: request.credential(for: url), into: files,
                                                    bytesBefore: bytesBefore, transfer: transfer)
                    done = (url, files, bytes)
                } catch let error as CancellationError {
                    throw error
                } catch let error as ModelLibrary.Error {
                    switch error {
                    case .insufficientDiskSpace, .storageFailed: throw error     // no other mirror helps
                    case .downloadFailed(let url, let reason): failures.append("\(url): \(reason)")
                    default: failures.append(error.errorDescription ?? "\(error)")
                    }
                }
            }
            guard let (url, files, bytes) = done else {
                throw ModelLibrary.Error.downloadFailed(
                    url: request.urls(ofPart: part)[0].absoluteString,
                    reason: "part \(part) of \(split.count) could not be downloaded: " + failures.joined(separator: "; "))
            }
            fetched.append((url, files, bytes))
            bytesBefore += bytes
        }
        let addition = try await installSplit(fetched, split: split, request: request)
        for part in fetched { part.files.removeAll() }
        return addition
    }

    /// Fetches one part into its partial file (or finds it finished before a restart).
    /// - Returns: its size, which the server must have announced.
    private func fetchPart(_ url: URL, credential: DownloadCredential?, into files: PartialDownloadFiles, bytesBefore: Int64,
                           transfer: DownloadTransfer) async throws -> Int64 {
        let validator = files.resumableValidator(totalBytes: nil)
        try ensureSpace(for: max((validator?.totalBytes ?? 0) - LibraryFiles.size(of: files.partial), 0))
        if let total = validator?.totalBytes, LibraryFiles.size(of: files.partial) == total { return total }
        guard let total = try await fetch(url, credential: credential, into: files, validator: validator, expectedBytes: nil,
                                          transfer: transfer, bytesBefore: bytesBefore) else {
            throw ModelLibrary.Error.downloadFailed(url: url.absoluteString,
                                                    reason: "the server did not say how large this part is, so it cannot be verified")
        }
        return total
    }

    /// Moves the parts into one staging folder under their names in the library, checks
    /// each one's size, then the set's split metadata, and registers the model.
    private func installSplit(_ parts: [(url: URL, files: PartialDownloadFiles, bytes: Int64)], split: GGUFFile.SplitName,
                              request: ModelLibrary.DownloadRequest) async throws -> ModelLibrary.Addition {
        let staging = try makeStaging()
        do {
            var firstSHA256 = ""
            for (index, part) in parts.enumerated() {
                let file = staging.file(split.fileName(part: index + 1))
                try LibraryFiles.move(part.files.partial, to: file)
                let size = LibraryFiles.size(of: file)
                guard size == part.bytes else {
                    throw ModelLibrary.Error.downloadFailed(url: part.url.absoluteString, reason: "got \(size) bytes, expected \(part.bytes)")
                }
                if index == 0 { firstSHA256 = try await Self.sha256(of: file) }
            }
            let header: GGUFFile
            do {
                header = try GGUFFile(modelAt: staging.file(split.fileName(part: 1)))
            } catch let error as GGUFFile.Error {
                throw ModelLibrary.Error.downloadFailed(url: parts[0].url.absoluteString,
                                                        reason: "not a usable split GGUF model (\(error.errorDescription ?? "\(error)"))")
            }
            let record = ModelLibrary.Record(file: header, sha256: firstSHA256, name: request.givenName, suggestedName: request.suggestedName,
                                             fileName: split.fileName(part: 1), sourceURLs: request.urls.map(\.absoluteString))
            return try await commit(staging, record: record, fallbackNames: ModelLibrary.Record.fallbackNames(
                file: header, suggested: request.suggestedName, fileName: split.fileName(part: 1)))
        } catch {
            discard(staging)
            throw error
        }
    }
}
