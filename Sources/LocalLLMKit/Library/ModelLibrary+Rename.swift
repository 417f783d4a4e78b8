import Foundation

extension ModelLibrary {
    /// Gives a managed model another display name, as a name a user gave
    /// (``ModelLibrary/Record/isNameGiven``). Its id, folder and file stay; its `metadata.json`
    /// is replaced whole (written to a temporary file, then renamed over the old one) under the
    /// library's lock, so that a reader sees the old record or the new one. The name is checked
    /// under that lock against the other models: no name may shadow another model or a catalog
    /// id (see ``entry(named:)``).
    ///
    /// ```swift
    /// let record = try await library.rename("gemma-3-270m-a5fd3b62", to: "Small Gemma")
    /// ```
    /// - Parameters:
    ///   - idOrName: the model's id or current name, as ``entry(named:)`` finds it.
    ///   - name: the new name; trimmed, and refused when empty, over 200 characters, holding
    ///     control characters, `default`, a selection prefix, a path, a catalog id other than
    ///     this model's own, or another model's id or given name.
    /// - Returns: the model's record with the new name.
    /// - Throws: ``ModelLibrary/Error/invalidName(reason:)``, ``ModelLibrary/Error/nameTaken(_:modelID:)``,
    ///   ``ModelLibrary/Error/modelNotFound(_:)``, ``ModelLibrary/Error/readOnlyModel(_:)`` for a model of
    ///   another program's cache, ``ModelLibrary/Error/ambiguousName(_:ids:)``, or
    ///   ``ModelLibrary/Error/storageFailed(path:reason:)``.
    @discardableResult
    public func rename(_ idOrName: String, to name: String) async throws -> ModelLibrary.Record {
        let newName = try ModelLibrary.Record.validatedName(name)
        let (found, folder) = try managedModel(named: idOrName)
        let lock = try await lock()
        defer { lock.release() }
        // Read again under the lock: another process may have renamed or deleted it meanwhile.
        guard LibraryFiles.kind(at: folder) == .directory, var record = Self.readRecord(in: folder),
              record.id == found.id, record.isValid(inFolderNamed: folder.lastPathComponent) else {
            throw ModelLibrary.Error.modelNotFound(idOrName)
        }
        guard record.name != newName || !record.isNameGiven else { return record }
        if let problem = Self.nameProblem(newName, sha256: record.sha256, among: try models(), excluding: record.id) { throw problem }
        record.name = newName
        record.isNameGiven = true
        try LibraryFiles.writeAtomically(ModelLibrary.Record.encoder.encode(record), to: folder.appending(path: "metadata.json"))
        return record
    }
}
