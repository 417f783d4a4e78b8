import Foundation

extension ModelLibrary {
    /// Downloads the request's projector into `staging`, beside the model it is being
    /// assembled with, trying its mirrors in turn: each under its own lock and partial file (so
    /// that an interrupted one resumes), checked against its SHA-256 or size and for a
    /// projector's GGUF header (architecture `clip`). A projector that fails fails the pull:
    /// the model is not registered without it.
    func downloadProjector(_ projector: ModelLibrary.DownloadRequest.Projector, of request: ModelLibrary.DownloadRequest,
                           into staging: Staging, transfer: DownloadTransfer, bytesBefore: Int64) async throws {
        let folder = try createWorkFolder(".downloads")
        var failures: [String] = []
        for url in projector.urls {
            try Task.checkCancellation()
            let files = PartialDownloadFiles(folder: folder, url: url)
            let lock = try await FileLock.acquire(files.lock)
            defer {
                files.removeIfNotResumable()
                lock.releaseRemovingFile()
            }
            do {
                let validator = files.resumableValidator(totalBytes: projector.bytes)
                let total = try await fetch(url, credential: request.credential(for: url), into: files, validator: validator,
                                            expectedBytes: projector.bytes, transfer: transfer, bytesBefore: bytesBefore)
                try await install(files.partial, as: projector, from: url, announced: total, in: staging)
                files.removeAll()
                return
            } catch let error as CancellationError {
                throw error
            } catch {
                failures.append((error as? LocalizedError)?.errorDescription ?? "\(url.absoluteString): \(error)")
            }
        }
        throw ModelLibrary.Error.downloadFailed(url: projector.urls[0].absoluteString,
                                                reason: "its projector could not be downloaded: " + failures.joined(separator: "; "))
    }

    /// Moves a downloaded projector into `staging` and checks it there.
    private func install(_ partial: URL, as projector: ModelLibrary.DownloadRequest.Projector, from url: URL,
                         announced: Int64?, in staging: Staging) async throws {
        let expectedSize = projector.bytes ?? announced
        guard projector.sha256 != nil || expectedSize != nil else {
            throw ModelLibrary.Error.downloadFailed(url: url.absoluteString,
                                                    reason: "the server did not say how large the projector is, so it cannot be verified")
        }
        let file = staging.file(projector.fileName)
        try LibraryFiles.move(partial, to: file)
        let (_, header) = try await Self.check(file, from: url, bytes: expectedSize, sha256: projector.sha256, what: " of the projector")
        let architecture = header.metadata["general.architecture"]?.stringValue ?? "none"
        guard architecture == "clip" else {
            throw ModelLibrary.Error.downloadFailed(url: url.absoluteString,
                                                    reason: "the projector's architecture is '\(architecture)', not a projector's ('clip')")
        }
    }
}
