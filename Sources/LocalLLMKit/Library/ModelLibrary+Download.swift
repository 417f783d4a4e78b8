import Foundation

extension ModelLibrary {
    /// Downloads a model into the library: streamed to a `.partial` file, resumed with
    /// HTTP Range after an interruption (also after a restart when the request has a SHA-256), verified (size, SHA-256,
    /// GGUF header) before it is registered, trying each mirror in turn. Concurrent
    /// requests for the same model share one transfer.
    ///
    /// ```swift
    /// let download = library.download(.gemma3_270m)
    /// for await progress in download.progress { print(progress.bytes, progress.fraction ?? 0) }
    /// let record = try await download.value
    /// ```
    public nonisolated func download(_ request: ModelDownloadRequest) -> ModelDownload {
        let key = request.sha256 ?? SHA256Digest.hex(of: Data(request.urls[0].absoluteString.utf8))
        let (transfer, isNew) = transfers.withLock { running -> (DownloadTransfer, Bool) in
            if let transfer = running[key] { return (transfer, false) }
            let transfer = DownloadTransfer()
            running[key] = transfer
            return (transfer, true)
        }
        let progress = transfer.subscribe()
        if isNew {
            transfer.start(Task {
                let result: Result<ModelRecord, any Error>
                do {
                    result = .success(try await self.perform(request, key: key, transfer: transfer))
                } catch {
                    result = .failure(error)
                }
                self.transfers.withLock { $0[key] = nil }
                transfer.finish(result)
            })
        }
        return ModelDownload(progress: progress, transfer: transfer)
    }

    /// Downloads, verifies and registers.
    private func perform(_ request: ModelDownloadRequest, key: String, transfer: DownloadTransfer) async throws -> ModelRecord {
        if let sha256 = request.sha256, let existing = try models().first(where: { $0.sha256 == sha256 }) {
            return existing
        }
        let folder = root.appending(path: ".downloads")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LLMKitError.libraryFailure(path: folder.path, reason: error.localizedDescription)
        }
        let partial = folder.appending(path: "\(key).partial")
        // Without a SHA-256 nothing proves that an earlier run's bytes belong to the same version
        // of the file, so such a download resumes only within this call.
        if request.sha256 == nil { try? FileManager.default.removeItem(at: partial) }
        try ensureSpace(for: max((request.bytes ?? 0) - Self.size(of: partial), 0))
        var lastError: (any Error)?
        for url in request.urls {
            try Task.checkCancellation()
            do {
                let complete = request.bytes.map { $0 == Self.size(of: partial) } ?? false   // finished before a restart
                let total = complete ? request.bytes : try await fetch(url, into: partial, expectedBytes: request.bytes,
                                                                        transfer: transfer)
                return try await verifyAndInstall(partial, from: url, request: request, totalBytes: total)
            } catch let error as CancellationError {
                throw error
            } catch {
                lastError = error
            }
        }
        throw lastError ?? LLMKitError.downloadFailed(url: request.urls[0].absoluteString, reason: "no mirror worked")
    }

    /// Fetches one mirror into the partial file, resuming up to three times after an interruption.
    /// - Returns: the total size the server announced, if it did.
    private func fetch(_ url: URL, into partial: URL, expectedBytes: Int64?, transfer: DownloadTransfer) async throws -> Int64? {
        let clock = ContinuousClock()
        var failure = "no attempt"
        for _ in 1...3 {
            try Task.checkCancellation()
            let start = clock.now, startBytes = Self.size(of: partial)
            let progress: @Sendable (Int64, Int64?) -> Void = { bytes, total in
                let seconds = max((clock.now - start).seconds, 1e-3)
                transfer.publish(DownloadProgress(bytes: bytes, total: expectedBytes ?? total,
                                                  bytesPerSecond: Double(bytes - startBytes) / seconds))
            }
            do {
                let result = try await transport.fetch(url, resumingAt: startBytes, into: partial, progress: progress)
                if result.statusCode == 416 && startBytes > 0 {       // the partial file is not a prefix: start over
                    try? FileManager.default.removeItem(at: partial)
                    failure = "the server refused to resume at byte \(startBytes)"
                    continue
                }
                guard (200..<300).contains(result.statusCode) else {
                    throw LLMKitError.downloadFailed(url: url.absoluteString, reason: "HTTP \(result.statusCode)")
                }
                return result.totalBytes
            } catch let interrupted as TransferInterrupted {
                failure = interrupted.description
                if Task.isCancelled { throw CancellationError() }
            }
        }
        throw LLMKitError.downloadFailed(url: url.absoluteString, reason: "interrupted three times; last: \(failure)")
    }

    /// Checks the downloaded file; a file that fails is deleted so that the next mirror starts clean.
    private func verifyAndInstall(_ partial: URL, from url: URL, request: ModelDownloadRequest, totalBytes: Int64?) async throws -> ModelRecord {
        func reject(_ error: LLMKitError) -> LLMKitError {
            try? FileManager.default.removeItem(at: partial)
            return error
        }
        let size = Self.size(of: partial)
        if let expected = request.bytes ?? totalBytes, size != expected {
            throw reject(.downloadFailed(url: url.absoluteString, reason: "got \(size) bytes, expected \(expected)"))
        }
        let sha256 = try await Self.sha256(of: partial)
        if let expected = request.sha256, sha256 != expected {
            throw reject(.checksumMismatch(url: url.absoluteString, expected: expected, actual: sha256))
        }
        let file: GGUFFile
        do {
            file = try GGUFFile(contentsOf: partial)
        } catch let error as LLMKitError {
            throw reject(.downloadFailed(url: url.absoluteString, reason: "not a usable GGUF file (\(error.localizedDescription))"))
        }
        let record = ModelRecord(file: file, sha256: sha256, name: request.name, fileName: request.fileName,
                                 sourceURLs: request.urls.map(\.absoluteString))
        return try install(partial, moving: true, record: record)
    }

    static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
