import Foundation

extension ModelLibrary {
    /// A stable string that names a model across restarts: `library:<id>`, a cache reference
    /// (`hf-cache:…`, `ollama:…`), or `file:<path>`. Persist ``storageValue``; resolve it
    /// later with ``ModelLibrary/resolve(_:)``.
    public struct Selection: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The string to store.
        public let storageValue: String

        /// Wraps a stored string.
        public init(_ storageValue: String) {
            self.storageValue = storageValue
        }

        /// A selection of a file by path.
        public static func file(_ url: URL) -> ModelLibrary.Selection { ModelLibrary.Selection("file:" + url.path) }

        /// The stored string.
        public var description: String { storageValue }
    }
}

extension ModelLibrary.Selection {
    /// What a selection points to now.
    public enum Resolution: Sendable, Equatable {
        /// The model is there.
        case available(URL)
        /// It is not (deleted, moved, cache cleared); the reason says what is missing.
        case unavailable(reason: String)

        /// The file, when available.
        public var url: URL? {
            if case .available(let url) = self { return url }
            return nil
        }
    }
}

extension ModelLibrary {
    /// Finds the model a stored selection names, without throwing: a stale selection gives
    /// ``ModelLibrary/Selection/Resolution/unavailable(reason:)``.
    public func resolve(_ selection: ModelLibrary.Selection) -> ModelLibrary.Selection.Resolution {
        let value = selection.storageValue
        func exists(_ url: URL) -> ModelLibrary.Selection.Resolution {
            FileManager.default.fileExists(atPath: url.path) ? .available(url) : .unavailable(reason: "\(url.path) no longer exists")
        }
        if value.hasPrefix("library:") {
            let id = String(value.dropFirst(8))
            guard let record = (try? managedModels())?.first(where: { $0.record.id == id })?.record else {
                return .unavailable(reason: "the library has no model \(id) any more")
            }
            return exists(url(of: record))
        }
        if value.hasPrefix("hf-cache:") {
            guard let file = HuggingFaceCache(environment: environment).file(for: value) else {
                return .unavailable(reason: "\(value) is not a valid Hugging Face cache reference")
            }
            return exists(file)
        }
        if value.hasPrefix("ollama:") {
            guard let entry = OllamaStore(environment: environment).models().first(where: { $0.id == value }) else {
                return .unavailable(reason: "Ollama's store has no \(value.dropFirst(7)) any more")
            }
            return exists(entry.url)
        }
        if let catalogEntry = ModelCatalog.entry(value) {
            return (try? installed(catalogEntry)).flatMap { $0 }.map { .available($0.url) }
                ?? .unavailable(reason: "\(value) is not downloaded")
        }
        if value == "default" {
            return defaultEntry().map { .available($0.url) } ?? .unavailable(reason: "scripts/bootstrap has not installed a default model")
        }
        if value.hasPrefix("file:") {
            return exists(URL(filePath: String(value.dropFirst(5))))
        }
        return .unavailable(reason: "\(value) is not a model selection")
    }

    /// Where a catalog model is installed: the library model with its SHA-256, else the file
    /// of that name and size that scripts/bootstrap put in its cache; nil when it is in neither.
    public func installed(_ catalogEntry: ModelCatalog.Entry) throws -> ModelLibrary.Entry? {
        if let record = try models().first(where: { $0.sha256 == catalogEntry.sha256 }) {
            return ModelLibrary.Entry(record: record, url: url(of: record))
        }
        var environment = environment
        environment["LLMKIT_MODEL"] = nil
        let file = LocalModel.defaultModelCandidates(environment: environment)[0]
            .deletingLastPathComponent().appending(path: catalogEntry.file)
        guard LibraryFiles.kind(at: file) == .file, LibraryFiles.size(of: file) == catalogEntry.bytes else { return nil }
        return ModelLibrary.Entry(id: catalogEntry.id, name: catalogEntry.displayName, url: file, bytes: catalogEntry.bytes,
                                  sha256: catalogEntry.sha256, source: .bootstrap)
    }
}
