import Foundation
import Synchronization

extension ModelLibrary {
    /// Downloads a model into the library, trying each mirror in turn, and registers it only
    /// once verified: its SHA-256 when the request has one, else its size (the request's, or
    /// the one the server announced), and its GGUF header.
    ///
    /// Each URL's bytes go to one `.partial` file, guarded by a lock that other processes
    /// honour: a second download of the same URL waits (``ModelLibrary/Download/Progress/isWaiting``) and
    /// reuses the first one's model. An interrupted download (a dropped connection, a
    /// cancellation, a restart) resumes with HTTP `Range` and `If-Range`, so that the server
    /// sends the rest of the same version of the file or, when it has changed, the whole new
    /// one. Failures the next attempt may not repeat (a dropped connection, HTTP 503) are
    /// retried after a growing pause; others (a host that does not resolve, a refused
    /// connection, TLS, HTTP 404) move on to the next mirror at once. Concurrent requests of
    /// this process for the same model share one transfer.
    ///
    /// A model already in the library (one with the request's SHA-256, or one downloaded from
    /// any of its URLs) is returned at once, without asking any server: ``ModelLibrary/Download/addition``
    /// says so. Its name stays: the request's `name` names a new model only, and
    /// ``rename(_:to:)`` renames one that is there.
    ///
    /// ```swift
    /// let download = library.download(.gemma3_270m)
    /// for await progress in download.progress { print(progress.bytes, progress.fraction ?? 0) }
    /// let record = try await download.value
    /// ```
    public nonisolated func download(_ request: ModelLibrary.DownloadRequest) -> ModelLibrary.Download {
        let key = request.sha256 ?? SHA256Digest.hex(of: Data(request.urls[0].absoluteString.utf8))
        // The task starts before the transfer is shared, so that every sharer finds it.
        let transfer = transfers.withLock { running -> DownloadTransfer in
            if let transfer = running[key] { return transfer }
            let transfer = DownloadTransfer()
            transfer.start(Task {
                defer {
                    self.transfers.withLock { $0[key] = nil }
                    transfer.finish()
                }
                return try await self.perform(request, transfer: transfer)
            })
            running[key] = transfer
            return transfer
        }
        return ModelLibrary.Download(progress: transfer.subscribe(), transfer: transfer)
    }

    /// How many times one mirror is tried when its failures may be passing ones.
    static let attemptsPerMirror = 3

    /// The pause before attempt `attempt + 1` of a mirror: 0.5 s, then 1 s, 2 s…, at most 8 s.
    static func retryDelay(after attempt: Int) -> Duration {
        .milliseconds(500 << min(attempt - 1, 4))
    }

    /// Tries the mirrors in turn; the error names every mirror's failure.
    private func perform(_ request: ModelLibrary.DownloadRequest, transfer: DownloadTransfer) async throws -> ModelLibrary.Addition {
        if let existing = try existingModel(for: request) {
            return ModelLibrary.Addition(record: existing, wasAlreadyInLibrary: true)
        }
        // A name taken is refused before the download, not after it (commit checks it again).
        if let name = request.givenName, let problem = Self.nameProblem(name, sha256: request.sha256, among: try models()) {
            throw problem
        }
        let folder = try createWorkFolder(".downloads")
        if let split = request.split {
            return try await downloadSplit(request, split: split, in: folder, transfer: transfer)
        }
        var failures: [(url: URL, error: any Swift.Error)] = []
        for url in request.urls {
            try Task.checkCancellation()
            do {
                return try await download(url, request: request, in: PartialDownloadFiles(folder: folder, url: url),
                                          transfer: transfer)
            } catch let error as CancellationError {
                throw error
            } catch let error as ModelLibrary.Error {
                switch error {
                case .insufficientDiskSpace, .storageFailed: throw error     // no other mirror helps
                default: failures.append((url, error))
                }
            } catch {
                failures.append((url, error))
            }
        }
        guard failures.count > 1 else {
            throw failures.first?.error ?? ModelLibrary.Error.downloadFailed(url: request.urls[0].absoluteString, reason: "no mirror worked")
        }
        let reasons = failures.map { failure -> String in
            if case ModelLibrary.Error.downloadFailed(_, let reason) = failure.error { return "\(failure.url.absoluteString): \(reason)" }
            return (failure.error as? LocalizedError)?.errorDescription
                ?? "\(failure.url.absoluteString): \(failure.error)"
        }
        throw ModelLibrary.Error.downloadFailed(url: request.urls[0].absoluteString,
                                         reason: "every mirror failed: " + reasons.joined(separator: "; "))
    }

    /// The managed model a request would download again: one with the request's SHA-256, or
    /// one downloaded from any of its URLs.
    func existingModel(for request: ModelLibrary.DownloadRequest) throws -> ModelLibrary.Record? {
        let models = try models()
        if let sha256 = request.sha256, let existing = models.first(where: { $0.sha256 == sha256 }) { return existing }
        let urls = Set(request.urls.map(\.absoluteString))
        return models.first { !urls.isDisjoint(with: $0.sourceURLs) }
    }

    /// Downloads one URL under its lock, then verifies and registers the file.
    private func download(_ url: URL, request: ModelLibrary.DownloadRequest, in files: PartialDownloadFiles,
                          transfer: DownloadTransfer) async throws -> ModelLibrary.Addition {
        let waitStart = Date()
        let lock = try await FileLock.acquire(files.lock) {
            transfer.publish(ModelLibrary.Download.Progress(bytes: LibraryFiles.size(of: files.partial), total: request.bytes,
                                              bytesPerSecond: 0, isWaiting: true))
        }
        defer {
            files.removeIfNotResumable()
            lock.releaseRemovingFile()
        }
        // The download that held the lock may have registered this very model meanwhile.
        let models = try models()
        if let sha256 = request.sha256, let existing = models.first(where: { $0.sha256 == sha256 }) {
            return ModelLibrary.Addition(record: existing, wasAlreadyInLibrary: true)
        }
        if lock.waited, let existing = models.first(where: {
            $0.sourceURLs.contains(url.absoluteString) && $0.addedAt >= waitStart.addingTimeInterval(-1)
        }) {
            return ModelLibrary.Addition(record: existing, wasAlreadyInLibrary: true)
        }
        let validator = files.resumableValidator(totalBytes: request.bytes)
        let expected = request.bytes ?? validator?.totalBytes
        try ensureSpace(for: max((expected ?? 0) - LibraryFiles.size(of: files.partial), 0))
        let total: Int64?
        if let expected, validator != nil, LibraryFiles.size(of: files.partial) == expected {
            total = expected                                   // finished before a restart
        } else {
            total = try await fetch(url, credential: request.credential(for: url), into: files, validator: validator,
                                    expectedBytes: request.bytes, transfer: transfer)
        }
        let addition = try await verifyAndInstall(files.partial, from: url, request: request, totalBytes: total, transfer: transfer)
        files.removeAll()
        return addition
    }

    /// Fetches one mirror into its partial file, resuming after passing failures.
    /// - Parameters:
    ///   - credential: the user name and password for `url`'s origin, if its request gave one.
    ///   - bytesBefore: bytes of earlier files of the same download (the parts of a split
    ///     model before this one), added to the progress; the total is then unknown.
    /// - Returns: the total size the server announced, if it did.
    func fetch(_ url: URL, credential: DownloadCredential?, into files: PartialDownloadFiles, validator: ResumeValidator?,
               expectedBytes: Int64?, transfer: DownloadTransfer, bytesBefore: Int64? = nil) async throws -> Int64? {
        let current = Mutex<ResumeValidator?>(validator)
        let clock = ContinuousClock()
        var last = "no attempt"
        var pause: Duration?
        for attempt in 1...Self.attemptsPerMirror {
            try Task.checkCancellation()
            if let pause { try await Task.sleep(for: pause) }  // back off: the failure may be passing
            pause = Self.retryDelay(after: attempt)
            let ifRange = current.withLock { $0?.ifRange }
            if ifRange == nil { files.removeAll() }             // nothing proves which version those bytes are
            let start = clock.now, startBytes = LibraryFiles.size(of: files.partial)
            let progress: @Sendable (Int64, Int64?) -> Void = { bytes, total in
                let seconds = max((clock.now - start).seconds, 1e-3)
                transfer.publish(ModelLibrary.Download.Progress(bytes: bytes + (bytesBefore ?? 0),
                                                  total: bytesBefore == nil ? expectedBytes ?? total : nil,
                                                  bytesPerSecond: Double(bytes - startBytes) / seconds))
            }
            let started: @Sendable (TransferResult) throws -> Void = { response in
                if response.resumed {
                    guard current.withLock({ $0?.isContinued(by: response) ?? false }) else { throw VersionChanged() }
                    return
                }
                // A transfer from byte 0 (the file was just emptied): its validator is stored before
                // any of its bytes, so that a later resume can only continue this version.
                let fresh = ResumeValidator(url: url, response: response)
                try fresh.write(to: files.validator)
                current.withLock { $0 = fresh }
            }
            do {
                let result = try await transport.fetch(url, credential: credential, resumingAt: startBytes,
                                                       validator: startBytes > 0 ? ifRange : nil, into: files.partial,
                                                       started: started, progress: progress)
                if result.statusCode == 416 && startBytes > 0 {  // the partial file is not a prefix: start over
                    files.removeAll()
                    current.withLock { $0 = nil }
                    last = "the server refused to resume at byte \(startBytes)"
                    pause = nil
                    continue
                }
                guard (200..<300).contains(result.statusCode) else {
                    last = TransferFailure.describe(status: result.statusCode)
                    if TransferFailure.isRetryable(status: result.statusCode) { continue }
                    throw ModelLibrary.Error.downloadFailed(url: url.absoluteString, reason: last)
                }
                return result.totalBytes
            } catch is VersionChanged {
                files.removeAll()
                current.withLock { $0 = nil }
                last = "the file changed on the server during the download"
                pause = nil
            } catch let interrupted as TransferInterrupted {
                if Task.isCancelled { throw CancellationError() }
                guard interrupted.isRetryable else {
                    throw ModelLibrary.Error.downloadFailed(url: url.absoluteString, reason: interrupted.description)
                }
                last = interrupted.description
            }
        }
        throw ModelLibrary.Error.downloadFailed(url: url.absoluteString, reason: "\(last) (gave up after \(Self.attemptsPerMirror) attempts)")
    }

    /// Moves the downloaded file into a staging folder (so that nothing else can change it
    /// any more), checks it there and registers it; a file that fails is deleted.
    private func verifyAndInstall(_ partial: URL, from url: URL, request: ModelLibrary.DownloadRequest, totalBytes: Int64?,
                                  transfer: DownloadTransfer) async throws -> ModelLibrary.Addition {
        let expectedSize = request.bytes ?? totalBytes
        guard request.sha256 != nil || expectedSize != nil else {
            try? LibraryFiles.removeTree(at: partial)
            throw ModelLibrary.Error.downloadFailed(url: url.absoluteString,
                                             reason: "the server did not say how large the file is, so it cannot be verified; give its SHA-256")
        }
        let staging = try makeStaging()
        let file = staging.file(request.fileName)
        do {
            try LibraryFiles.move(partial, to: file)
            let size = LibraryFiles.size(of: file)
            let (sha256, header) = try await Self.check(file, from: url, bytes: expectedSize, sha256: request.sha256)
            if let projector = request.projector {
                try await downloadProjector(projector, of: request, into: staging, transfer: transfer, bytesBefore: size)
            }
            let record = ModelLibrary.Record(file: header, sha256: sha256, name: request.givenName, suggestedName: request.suggestedName,
                                             fileName: request.fileName, sourceURLs: request.urls.map(\.absoluteString))
            return try await commit(staging, record: record, fallbackNames: ModelLibrary.Record.fallbackNames(
                file: header, suggested: request.suggestedName, fileName: request.fileName))
        } catch {
            discard(staging)
            throw error
        }
    }

    /// Checks a downloaded file against its expected size and SHA-256 and reads its GGUF header;
    /// `what` names it in errors ("" for the model).
    /// - Returns: its SHA-256 and header.
    static func check(_ file: URL, from url: URL, bytes expectedSize: Int64?, sha256 expected: String?,
                      what: String = "") async throws -> (sha256: String, header: GGUFFile) {
        let size = LibraryFiles.size(of: file)
        if let expectedSize, size != expectedSize {
            throw ModelLibrary.Error.downloadFailed(url: url.absoluteString, reason: "got \(size) bytes\(what), expected \(expectedSize)")
        }
        let sha256 = try await Self.sha256(of: file)
        if let expected, sha256 != expected {
            throw ModelLibrary.Error.checksumMismatch(url: url.absoluteString, expected: expected, actual: sha256)
        }
        do {
            return (sha256, try GGUFFile(contentsOf: file))
        } catch GGUFFile.Error.invalidFile(_, let reason) {
            throw ModelLibrary.Error.downloadFailed(url: url.absoluteString, reason: "not a usable GGUF file\(what) (\(reason))")
        }
    }

    static func size(of url: URL) -> Int64 {
        LibraryFiles.size(of: url)
    }
}

/// Thrown by a transfer's `started` when a resumed response is of another version of the file.
private struct VersionChanged: Error {}
