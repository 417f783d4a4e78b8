import Foundation
import Synchronization

/// A folder of GGUF models: imported or downloaded ones it manages, plus the models it
/// finds in the Hugging Face and Ollama caches (listed and loadable, never changed).
///
/// ```swift
/// let library = ModelLibrary()                                 // ~/.local/share/llmkit/models
/// let download = library.download(.gemma3_270m)
/// for await progress in download.progress { print(progress.fraction ?? 0) }
/// let record = try await download.value                        // verified, registered
/// let model = try await LocalModel.load(from: library.url(of: record))
/// ```
///
/// Each managed model lives in its own folder with `metadata.json`. Files are written
/// in a staging folder first and moved into place whole, so a crash never leaves a
/// model listed that is not complete.
public actor ModelLibrary {
    /// The library's folder.
    public nonisolated let root: URL
    /// Environment variables used to find the Hugging Face and Ollama caches.
    nonisolated let environment: [String: String]
    /// Free bytes on the volume of a path; replaceable for tests.
    nonisolated let freeSpace: @Sendable (URL) -> Int64?
    /// Where downloads fetch from.
    nonisolated let transport: any DownloadTransport
    /// Transfers in flight, by key, so that concurrent requests share one.
    nonisolated let transfers = Mutex<[String: DownloadTransfer]>([:])

    /// The default folder: `$LLMKIT_HOME/models`, else `~/.local/share/llmkit/models` on Linux
    /// and `Application Support/LocalLLMKit/models` on Apple platforms.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["LLMKIT_HOME"], !home.isEmpty {
            return URL(filePath: home).appending(path: "models")
        }
        #if os(Linux)
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(filePath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
        return base.appending(path: "llmkit/models")
        #else
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser
        return support.appending(path: "LocalLLMKit/models")
        #endif
    }

    /// Opens (and creates on first write) the library at `root`.
    /// - Parameters:
    ///   - root: the folder.
    ///   - environment: where to look for `HF_HUB_CACHE`, `HF_HOME`, `OLLAMA_MODELS`.
    ///   - freeSpace: how free disk space is measured (tests can pretend the disk is full).
    ///   - transport: how files are fetched (URLSession by default).
    public init(root: URL = ModelLibrary.defaultRoot(),
                environment: [String: String] = ProcessInfo.processInfo.environment,
                freeSpace: @escaping @Sendable (URL) -> Int64? = ModelLibrary.volumeFreeSpace,
                transport: any DownloadTransport = URLSessionTransport()) {
        self.root = root
        self.environment = environment
        self.freeSpace = freeSpace
        self.transport = transport
    }

    /// Free bytes on the volume that holds `url` (or its nearest existing parent).
    public static let volumeFreeSpace: @Sendable (URL) -> Int64? = { url in
        var probe = url
        while !FileManager.default.fileExists(atPath: probe.path) && probe.path != "/" { probe.deleteLastPathComponent() }
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: probe.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    // MARK: Managed models

    /// The managed models, by name.
    /// - Throws: ``LLMKitError/libraryFailure(path:reason:)`` when the folder cannot be read.
    public func models() throws -> [ModelRecord] {
        guard FileManager.default.fileExists(atPath: root.path) else { return [] }
        let folders: [URL]
        do {
            folders = try FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)
        } catch {
            throw LLMKitError.libraryFailure(path: root.path, reason: error.localizedDescription)
        }
        return folders.filter { !$0.lastPathComponent.hasPrefix(".") }
            .compactMap { folder in
                // A record must name its own folder and a plain file in it (never `..`).
                guard let record = try? Self.readRecord(in: folder), record.id == folder.lastPathComponent,
                      (try? Self.safeFileName(record.fileName)) != nil,
                      FileManager.default.fileExists(atPath: folder.appending(path: record.fileName).path) else { return nil }
                return record
            }
            .sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// The managed model with this id or name.
    public func model(_ idOrName: String) throws -> ModelRecord? {
        let records = try models()
        return records.first { $0.id == idOrName } ?? records.first { $0.name == idOrName }
    }

    /// The GGUF file of a managed model.
    public nonisolated func url(of record: ModelRecord) -> URL {
        record.folder(in: root).appending(path: record.fileName)
    }

    /// Deletes a managed model. `beforeRemoving` runs first, so that a loaded model can be
    /// released before its file goes away.
    /// - Returns: the deleted model.
    /// - Throws: ``LLMKitError/modelNotInLibrary(_:)``, ``LLMKitError/readOnlyModel(_:)`` for a
    ///   model of another program's cache, or ``LLMKitError/libraryFailure(path:reason:)``.
    @discardableResult
    public func delete(_ idOrName: String, beforeRemoving: (@Sendable (ModelRecord) async -> Void)? = nil) async throws -> ModelRecord {
        guard let record = try model(idOrName) else {
            if discovered().contains(where: { $0.id == idOrName || $0.name == idOrName }) {
                throw LLMKitError.readOnlyModel(idOrName)
            }
            throw LLMKitError.modelNotInLibrary(idOrName)
        }
        await beforeRemoving?(record)
        let folder = record.folder(in: root)
        // Rename first, so that the model disappears from listings at once and whole.
        let trash = root.appending(path: ".trash-\(UUID().uuidString)")
        do {
            try FileManager.default.moveItem(at: folder, to: trash)
            try FileManager.default.removeItem(at: trash)
        } catch {
            throw LLMKitError.libraryFailure(path: folder.path, reason: "cannot delete it: \(error.localizedDescription)")
        }
        return record
    }

    // MARK: Storage

    static func readRecord(in folder: URL) throws -> ModelRecord {
        let data = try Data(contentsOf: folder.appending(path: "metadata.json"))
        return try ModelRecord.decoder.decode(ModelRecord.self, from: data)
    }

    /// Moves a verified file into the library as a new model, atomically: the file and its
    /// `metadata.json` are assembled in a staging folder that is then renamed into place.
    /// An existing model with the same SHA-256 is returned instead.
    func install(_ file: URL, moving: Bool, record: ModelRecord) throws -> ModelRecord {
        try Task.checkCancellation()
        removeLeftovers()
        if let existing = try models().first(where: { $0.sha256 == record.sha256 }) {
            if moving { try? FileManager.default.removeItem(at: file) }
            return existing
        }
        let staging = root.appending(path: ".staging/\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            let target = staging.appending(path: record.fileName)
            if moving {
                try FileManager.default.moveItem(at: file, to: target)
            } else {
                try FileManager.default.copyItem(at: file, to: target)
            }
            try ModelRecord.encoder.encode(record).write(to: staging.appending(path: "metadata.json"), options: .atomic)
            try FileManager.default.moveItem(at: staging, to: record.folder(in: root))
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw LLMKitError.libraryFailure(path: root.path, reason: "cannot add \(record.fileName): \(error.localizedDescription)")
        }
        return record
    }
}

extension ModelLibrary {
    /// Removes what an interrupted delete (`.trash-*`) or a crashed install (a staging folder
    /// older than a day, so that another process's install in progress is left alone) left behind.
    func removeLeftovers() {
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] where name.hasPrefix(".trash-") {
            try? manager.removeItem(at: root.appending(path: name))
        }
        let staging = root.appending(path: ".staging")
        let dayAgo = Date().addingTimeInterval(-86_400)
        for name in (try? manager.contentsOfDirectory(atPath: staging.path)) ?? [] {
            let folder = staging.appending(path: name)
            if let modified = (try? manager.attributesOfItem(atPath: folder.path))?[.modificationDate] as? Date, modified < dayAgo {
                try? manager.removeItem(at: folder)
            }
        }
    }
}

extension ModelRecord {
    /// The model's folder in a library.
    func folder(in root: URL) -> URL { root.appending(path: id) }
}
