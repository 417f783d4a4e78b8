import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ModelLibrary {
    /// Adds a second model with the same file under another name (what `ollama cp` does):
    /// the copy has its own id, folder and `metadata.json`, so that deleting or renaming
    /// either leaves the other whole. Its files are hard links to the source's where the
    /// volume allows (no second copy of the weights on disk), else copies; a split model's
    /// parts and a projector come along. A model of another program's cache, or the
    /// bootstrap's, is imported under the new name instead (a copy of its file), unless
    /// the library already holds that file.
    ///
    /// ```swift
    /// let copy = try await library.copy("gemma-3-270m", to: "my-gemma")
    /// ```
    /// - Parameters:
    ///   - idOrName: the model, found as ``entry(named:)`` finds it.
    ///   - name: the copy's name, checked as ``rename(_:to:)`` checks one.
    /// - Returns: the copy's record.
    /// - Throws: ``ModelLibrary/Error/modelNotFound(_:)``, ``ModelLibrary/Error/ambiguousName(_:ids:)``,
    ///   ``ModelLibrary/Error/invalidName(reason:)``, ``ModelLibrary/Error/nameTaken(_:modelID:)``,
    ///   ``ModelLibrary/Error/insufficientDiskSpace(path:needed:available:)``, or
    ///   ``ModelLibrary/Error/storageFailed(path:reason:)``.
    @discardableResult
    public func copy(_ idOrName: String, to name: String) async throws -> ModelLibrary.Record {
        let newName = try ModelLibrary.Record.validatedName(name)
        let source: (record: ModelLibrary.Record, folder: URL)
        switch try match(idOrName) {
        case .managed(let record, let folder)?:
            source = (record, folder)
        case .readOnly(let entry)?:
            let addition = try await add(importing: entry.url, name: newName)
            guard addition.wasAlreadyInLibrary else { return addition.record }
            source = (addition.record, addition.record.folder(in: root))
        case .file?, .notDownloaded?, nil:
            throw ModelLibrary.Error.modelNotFound(idOrName)
        }
        // Refused before any file is linked; checked again under the lock.
        if let problem = Self.nameProblem(newName, sha256: source.record.sha256, among: try models()) { throw problem }
        let staging = try makeStaging()
        do {
            try await linkFiles(of: source.folder, into: staging)
            let lock = try await lock()
            defer { lock.release() }
            guard LibraryFiles.kind(at: source.folder) == .directory, Self.readRecord(in: source.folder) == source.record else {
                throw ModelLibrary.Error.modelNotFound(idOrName)
            }
            if let problem = Self.nameProblem(newName, sha256: source.record.sha256, among: try models()) { throw problem }
            var record = source.record
            record.name = newName
            record.isNameGiven = true
            record.id = ModelLibrary.Record.id(for: newName, sha256: record.sha256)
            record.addedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let destination = root.appending(path: record.id)
            guard record.isValid(inFolderNamed: record.id), LibraryFiles.kind(at: destination) == .missing else {
                throw ModelLibrary.Error.nameTaken(newName, modelID: record.id)
            }
            try LibraryFiles.writeAtomically(ModelLibrary.Record.encoder.encode(record), to: staging.file("metadata.json"))
            try LibraryFiles.move(staging.folder, to: destination)
            staging.lock.release()
            return record
        } catch {
            discard(staging)
            throw error
        }
    }

    /// Links (else copies) every regular file of a model's folder but its `metadata.json` into
    /// `staging`; anything that is not a regular file (a link someone put there) is left out.
    private func linkFiles(of folder: URL, into staging: Staging) async throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw LibraryFiles.failure(folder, "cannot list it")
        }
        for name in names where name != "metadata.json" && !name.hasPrefix(".") && LibraryFiles.kind(at: folder.appending(path: name)) == .file {
            let source = folder.appending(path: name)
            let target = staging.file(name)
            guard link(source.path, target.path) != 0 else { continue }
            try ensureSpace(for: LibraryFiles.size(of: source))
            _ = try await Self.copyHashing(source, to: target)
        }
    }
}
