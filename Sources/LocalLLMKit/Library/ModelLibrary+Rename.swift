import Foundation

extension ModelLibrary {
    /// Gives a managed model another display name. Its id, folder and file stay; its
    /// `metadata.json` is replaced whole (written to a temporary file, then renamed over the
    /// old one) under the library's lock, so that a reader sees the old record or the new one.
    ///
    /// ```swift
    /// let record = try await library.rename("gemma-3-270m-a5fd3b62", to: "Small Gemma")
    /// ```
    /// - Parameters:
    ///   - idOrName: the model's id or current name.
    ///   - name: the new name; trimmed, and refused when empty, over 200 characters or holding
    ///     control characters.
    /// - Returns: the model's record with the new name.
    /// - Throws: ``ModelLibrary/Error/invalidName(reason:)``, ``ModelLibrary/Error/modelNotFound(_:)``,
    ///   ``ModelLibrary/Error/readOnlyModel(_:)`` for a model of another program's cache, or
    ///   ``ModelLibrary/Error/storageFailed(path:reason:)``.
    @discardableResult
    public func rename(_ idOrName: String, to name: String) async throws -> ModelLibrary.Record {
        let newName = try ModelLibrary.Record.validatedName(name)
        guard let (found, folder) = try managedModel(idOrName) else {
            if try entry(named: idOrName) != nil { throw ModelLibrary.Error.readOnlyModel(idOrName) }
            throw ModelLibrary.Error.modelNotFound(idOrName)
        }
        let lock = try await lock()
        defer { lock.release() }
        // Read again under the lock: another process may have renamed or deleted it meanwhile.
        guard LibraryFiles.kind(at: folder) == .directory, var record = Self.readRecord(in: folder),
              record.id == found.id, record.isValid(inFolderNamed: folder.lastPathComponent) else {
            throw ModelLibrary.Error.modelNotFound(idOrName)
        }
        guard record.name != newName else { return record }
        record.name = newName
        try LibraryFiles.writeAtomically(ModelLibrary.Record.encoder.encode(record), to: folder.appending(path: "metadata.json"))
        return record
    }
}
