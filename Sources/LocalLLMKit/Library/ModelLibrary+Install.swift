import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ModelLibrary {
    /// A folder in `.staging` where a new model is assembled (its file, then its
    /// `metadata.json`) before one rename puts it in place. It stays locked while it exists,
    /// so that a cleanup, in this or another process, leaves it alone.
    struct Staging: Sendable {
        /// The folder.
        let folder: URL
        /// The lock on the folder.
        let lock: FileLock

        /// The path of a file in the folder.
        func file(_ name: String) -> URL { folder.appending(path: name) }
    }

    /// Creates and locks a new staging folder.
    /// - Throws: ``ModelLibrary/Error/storageFailed(path:reason:)``.
    func makeStaging() throws -> Staging {
        let parent = try createWorkFolder(".staging")
        for _ in 0..<3 {
            let folder = parent.appending(path: UUID().uuidString)
            guard mkdir(folder.path, 0o755) == 0 else { throw LibraryFiles.failure(folder, "cannot create it") }
            if let lock = FileLock.acquireIfFree(folder) { return Staging(folder: folder, lock: lock) }
            // A cleanup took the new folder for a leftover in the instant before it was locked.
        }
        throw ModelLibrary.Error.storageFailed(path: parent.path, reason: "cannot create a staging folder")
    }

    /// Deletes a staging folder and everything in it.
    func discard(_ staging: Staging) {
        try? LibraryFiles.removeTree(at: staging.folder)
        staging.lock.release()
    }

    /// Registers the model assembled in `staging` (its file already in place, flushed to
    /// disk): under the library's lock, settles its name, writes `metadata.json`, then renames
    /// the folder to the model's id. A model with the same SHA-256 that is already there wins:
    /// it is returned (``ModelLibrary/Addition/wasAlreadyInLibrary`` set) and the staging folder
    /// deleted. A name a user gave must pass ``nameProblem(_:sha256:among:excluding:)``; a model
    /// no user named takes the first of `fallbackNames` that passes it (its id follows its
    /// name). On an error the caller discards `staging`.
    /// - Throws: ``ModelLibrary/Error/invalidName(reason:)`` or ``ModelLibrary/Error/nameTaken(_:modelID:)``
    ///   for a given name that another model or the catalog holds; ``ModelLibrary/Error/storageFailed(path:reason:)``.
    func commit(_ staging: Staging, record: ModelLibrary.Record, fallbackNames: [String]) async throws -> ModelLibrary.Addition {
        try Task.checkCancellation()
        removeAbandonedWork()
        let lock = try await lock()
        defer { lock.release() }
        let models = try models()
        if let existing = models.first(where: { $0.sha256 == record.sha256 }) {
            discard(staging)
            return ModelLibrary.Addition(record: existing, wasAlreadyInLibrary: true)
        }
        var record = record
        if record.isNameGiven {
            if let problem = Self.nameProblem(record.name, sha256: record.sha256, among: models) { throw problem }
        } else {
            record.name = Self.availableName(fallbackNames + [record.name], sha256: record.sha256, among: models)
            record.id = ModelLibrary.Record.id(for: record.name, sha256: record.sha256)
        }
        try LibraryFiles.writeAtomically(ModelLibrary.Record.encoder.encode(record), to: staging.file("metadata.json"))
        let destination = root.appending(path: record.id)
        guard record.isValid(inFolderNamed: record.id), LibraryFiles.kind(at: destination) == .missing else {
            throw ModelLibrary.Error.storageFailed(path: destination.path,
                                             reason: "cannot add \(record.fileName): something that is not a valid model already has that name")
        }
        try LibraryFiles.move(staging.folder, to: destination)
        staging.lock.release()
        return ModelLibrary.Addition(record: record, wasAlreadyInLibrary: false)
    }

    /// Copies `source` to `target` (a new file) while computing its SHA-256, in one pass off
    /// the caller's actor, and flushes it to disk; stops when the caller is cancelled.
    /// - Parameters:
    ///   - progress: called after each chunk with the bytes copied so far.
    /// - Throws: ``ModelLibrary/Error/storageFailed(path:reason:)`` when writing fails (a full disk).
    static func copyHashing(_ source: URL, to target: URL,
                            progress: (@Sendable (Int64) -> Void)? = nil) async throws -> String {
        let task = Task.detached(priority: .utility) { () throws -> String in
            let input = try FileHandle(forReadingFrom: source)
            defer { try? input.close() }
            let descriptor = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw LibraryFiles.failure(target, "cannot create it") }
            let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            var digest = SHA256Digest()
            var done: Int64 = 0
            do {
                while let chunk = try input.read(upToCount: 4 << 20), !chunk.isEmpty {
                    try Task.checkCancellation()
                    digest.update(chunk)
                    try output.write(contentsOf: chunk)
                    done += Int64(chunk.count)
                    progress?(done)
                }
                try output.synchronize()
            } catch let error as CancellationError {
                throw error
            } catch {
                throw ModelLibrary.Error.storageFailed(path: target.path, reason: "cannot copy \(source.path) here: \(LibraryFiles.describe(error))")
            }
            return digest.finalize()
        }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }
}
