import Foundation

extension ModelLibrary {
    /// What a name finds: the one answer of the one lookup order that ``entry(named:)``
    /// documents, which every way of naming a model goes through.
    enum NameMatch {
        /// A managed model, and the folder it was read from.
        case managed(ModelLibrary.Record, folder: URL)
        /// A model the library does not manage: the bootstrap's, or one of another program's cache.
        case readOnly(ModelLibrary.Entry)
        /// The file of a `file:` (or cache) selection, which exists.
        case file(URL)
        /// A catalog id whose model is installed nowhere.
        case notDownloaded(catalogID: String)
    }

    /// Finds what `name` names, in the order ``entry(named:)`` documents.
    /// - Throws: ``ModelLibrary/Error/ambiguousName(_:ids:)`` when several models share the
    ///   first rank that finds any; ``ModelLibrary/Error/storageFailed(path:reason:)``.
    func match(_ name: String) throws -> NameMatch? {
        if Self.selectionPrefixes.contains(where: { name.hasPrefix($0) }) { return try matchSelection(name) }
        let managed = try managedModels()
        if let found = managed.first(where: { $0.record.id == name }) { return .managed(found.record, folder: found.folder) }
        if name == "default" { return defaultEntry().map { .readOnly($0) } }
        if let found = try single(name, managed.filter { $0.record.isNameGiven && $0.record.name == name }) {
            return .managed(found.record, folder: found.folder)
        }
        if let catalogEntry = ModelCatalog.entry(name) {
            if let found = managed.first(where: { $0.record.sha256 == catalogEntry.sha256 }) {
                return .managed(found.record, folder: found.folder)
            }
            return try installed(catalogEntry).map { .readOnly($0) } ?? .notDownloaded(catalogID: name)
        }
        let fromFiles = managed.filter { !$0.record.isNameGiven && $0.record.name == name }
        let cached = discovered().filter { $0.name == name }
        guard fromFiles.count + cached.count <= 1 else {
            throw ModelLibrary.Error.ambiguousName(name, ids: fromFiles.map(\.record.id) + cached.map(\.id))
        }
        if let found = fromFiles.first { return .managed(found.record, folder: found.folder) }
        return cached.first.map { .readOnly($0) }
    }

    /// The one model of `candidates`, nil for none.
    /// - Throws: ``ModelLibrary/Error/ambiguousName(_:ids:)`` for several.
    private func single(_ name: String, _ candidates: [(record: ModelLibrary.Record, folder: URL)]) throws
        -> (record: ModelLibrary.Record, folder: URL)? {
        guard candidates.count <= 1 else { throw ModelLibrary.Error.ambiguousName(name, ids: candidates.map(\.record.id)) }
        return candidates.first
    }

    /// A selection string: `library:ID` finds the managed model with that id only; a cache
    /// reference the entry with that id (or its file); `file:PATH` that file, if it exists.
    private func matchSelection(_ selection: String) throws -> NameMatch? {
        if selection.hasPrefix("library:") {
            let id = String(selection.dropFirst(8))
            return try managedModels().first { $0.record.id == id }.map { .managed($0.record, folder: $0.folder) }
        }
        if !selection.hasPrefix("file:"), let entry = discovered().first(where: { $0.id == selection }) { return .readOnly(entry) }
        return resolve(ModelLibrary.Selection(selection)).url.map { .file($0) }
    }

    /// The model a user named. One order, the same everywhere (`--model`, `show`, `rm`,
    /// ``locate(_:)``, ``file(named:)``, ``delete(_:beforeRemoving:)``, ``rename(_:to:)``); the
    /// first rank that finds something wins:
    /// 1. a selection string: `library:ID` (by id only), `hf-cache:…`, `ollama:…`, `file:PATH`;
    /// 2. the exact id of a library model, or `default`, the bootstrap's model;
    /// 3. a name a user gave a library model (`--name`, ``rename(_:to:)``);
    /// 4. the id of a ``ModelCatalog`` entry: the library model with its SHA-256, else the file
    ///    scripts/bootstrap installed (nil, and ``file(named:)`` throws, when it is in neither);
    /// 5. a name that came from a file (`general.name`, the file name), or a cache model's name.
    ///
    /// Names match exactly. A name can never shadow a rank above its own: `default`, selection
    /// prefixes, paths, other models' ids and given names, and catalog ids (except for that
    /// catalog model's own file) are refused as names (``ModelLibrary/Error/invalidName(reason:)``,
    /// ``ModelLibrary/Error/nameTaken(_:modelID:)``), and a file whose `general.name` is one of
    /// them gets another name.
    /// - Returns: nil when nothing has that name, or for a `file:` selection (see ``locate(_:)``).
    /// - Throws: ``ModelLibrary/Error/ambiguousName(_:ids:)`` when several models share the
    ///   rank that finds the name; ``ModelLibrary/Error/storageFailed(path:reason:)``.
    public func entry(named name: String) throws -> ModelLibrary.Entry? {
        switch try match(name) {
        case .managed(let record, _)?: return ModelLibrary.Entry(record: record, url: url(of: record))
        case .readOnly(let entry)?: return entry
        case .file?, .notDownloaded?, nil: return nil
        }
    }

    /// The managed model that `name` finds, in the order of ``entry(named:)``; nil when it
    /// finds nothing, or a model the library does not manage.
    /// - Throws: what ``entry(named:)`` throws.
    public func model(_ name: String) throws -> ModelLibrary.Record? {
        if case .managed(let record, _)? = try match(name) { return record }
        return nil
    }

    /// The file of the model a user named: as ``entry(named:)``, or the file of a `file:` selection.
    /// - Throws: what ``entry(named:)`` throws.
    public func locate(_ name: String) throws -> URL? {
        switch try match(name) {
        case .managed(let record, _)?: return url(of: record)
        case .readOnly(let entry)?: return entry.url
        case .file(let url)?: return url
        case .notDownloaded?, nil: return nil
        }
    }

    /// The file of the model a user named, as ``locate(_:)`` finds it.
    /// - Throws: ``ModelLibrary/Error/notDownloaded(catalogID:)`` for a catalog id that is not
    ///   installed, ``ModelLibrary/Error/modelNotFound(_:)`` for any other name that finds
    ///   nothing, ``ModelLibrary/Error/ambiguousName(_:ids:)``.
    public func file(named name: String) throws -> URL {
        if let url = try locate(name) { return url }
        if ModelCatalog.entry(name) != nil { throw ModelLibrary.Error.notDownloaded(catalogID: name) }
        throw ModelLibrary.Error.modelNotFound(name)
    }

    /// Every name that finds a model here: ids and names of every entry, and catalog ids.
    public func knownNames() -> [String] {
        let entries = (try? entries()) ?? discovered()
        return entries.flatMap { [$0.id, $0.name] } + ModelCatalog.all.map(\.id)
    }
}
