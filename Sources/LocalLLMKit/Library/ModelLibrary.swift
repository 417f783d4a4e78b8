import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        DataLocation.folder(environment: environment).appending(path: "models")
    }

    /// Opens (and creates on first write) the library at `root`.
    /// - Parameters:
    ///   - root: the folder.
    ///   - environment: where to look for `HF_HUB_CACHE`, `HF_HOME`, `OLLAMA_MODELS`.
    public init(root: URL = ModelLibrary.defaultRoot(),
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(root: root, environment: environment, freeSpace: ModelLibrary.volumeFreeSpace,
                  transport: URLSessionTransport())
    }

    /// A library with its test seams set.
    /// - Parameters:
    ///   - freeSpace: how free disk space is measured (tests can pretend the disk is full).
    ///   - transport: how files are fetched.
    package init(root: URL, environment: [String: String], freeSpace: @escaping @Sendable (URL) -> Int64?,
                 transport: any DownloadTransport) {
        self.root = root
        self.environment = environment
        self.freeSpace = freeSpace
        self.transport = transport
    }

    /// Free bytes on the volume that holds `url` (or its nearest existing parent).
    package static let volumeFreeSpace: @Sendable (URL) -> Int64? = { url in
        var probe = url
        while !FileManager.default.fileExists(atPath: probe.path) && probe.path != "/" { probe.deleteLastPathComponent() }
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: probe.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    // MARK: Managed models

    /// The managed models, by name.
    /// - Throws: ``ModelLibrary/Error/storageFailed(path:reason:)`` when the folder cannot be read.
    public func models() throws -> [ModelLibrary.Record] {
        try managedModels().map(\.record)
    }

    /// The managed models with the folder each was read from. Only real folders directly in
    /// the library count (a symbolic link never does), whose `metadata.json` is valid for that
    /// folder's name and whose model file is a regular file in it: so everything listed, and
    /// everything ``delete(_:beforeRemoving:)`` can reach, lies inside the library.
    func managedModels() throws -> [(record: ModelLibrary.Record, folder: URL)] {
        guard FileManager.default.fileExists(atPath: root.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root.path)
        } catch {
            throw ModelLibrary.Error.storageFailed(path: root.path, reason: SystemErrorText.describe(error))
        }
        return names.filter { !$0.hasPrefix(".") }
            .compactMap { name -> (record: ModelLibrary.Record, folder: URL)? in
                let folder = root.appending(path: name)
                guard LibraryFiles.kind(at: folder) == .directory, let record = Self.readRecord(in: folder),
                      record.isValid(inFolderNamed: name),
                      LibraryFiles.kind(at: folder.appending(path: record.fileName)) == .file else { return nil }
                return (record, folder)
            }
            .sorted { ($0.record.name, $0.record.id) < ($1.record.name, $1.record.id) }
    }

    /// The GGUF file of a managed model.
    public nonisolated func url(of record: ModelLibrary.Record) -> URL {
        record.folder(in: root).appending(path: record.fileName)
    }

    /// Deletes a managed model, found by name as ``entry(named:)`` finds it (a catalog id
    /// deletes the library model with that catalog model's SHA-256). `beforeRemoving` runs
    /// first, so that a loaded model can be released before its file goes away. Only the
    /// model's own folder in the library is removed, and no symbolic link in it is followed.
    /// - Returns: the deleted model.
    /// - Throws: ``ModelLibrary/Error/modelNotFound(_:)``, ``ModelLibrary/Error/readOnlyModel(_:)`` for a
    ///   model of another program's cache or the bootstrap's, ``ModelLibrary/Error/ambiguousName(_:ids:)``,
    ///   or ``ModelLibrary/Error/storageFailed(path:reason:)``.
    @discardableResult
    public func delete(_ idOrName: String, beforeRemoving: (@Sendable (ModelLibrary.Record) async -> Void)? = nil) async throws -> ModelLibrary.Record {
        let (record, folder) = try managedModel(named: idOrName)
        await beforeRemoving?(record)
        let trash = root.appending(path: ".trash-\(UUID().uuidString)")
        let lock = try await lock()
        do {
            defer { lock.release() }
            // Checked again under the lock, after the callback: another process may have
            // deleted or replaced the folder meanwhile.
            guard LibraryFiles.kind(at: folder) == .directory, Self.readRecord(in: folder) == record else {
                throw ModelLibrary.Error.modelNotFound(idOrName)
            }
            // A rename moves the folder entry itself, so the model disappears from listings at
            // once and whole; were it swapped for a link meanwhile, the link is what moves.
            try LibraryFiles.move(folder, to: trash)
        }
        do {
            try LibraryFiles.removeTree(at: trash)
        } catch {
            throw ModelLibrary.Error.storageFailed(path: trash.path, reason: "\(record.id) is no longer in the library, but deleting its files failed (\(SystemErrorText.describe(error))); removing the leftovers retries")
        }
        return record
    }

    /// The managed model that `name` finds (see ``entry(named:)``), and its folder.
    /// - Throws: ``ModelLibrary/Error/readOnlyModel(_:)`` when it finds a model the library does
    ///   not manage, ``ModelLibrary/Error/modelNotFound(_:)`` when it finds none, or what
    ///   ``entry(named:)`` throws.
    func managedModel(named name: String) throws -> (record: ModelLibrary.Record, folder: URL) {
        switch try match(name) {
        case .managed(let record, let folder)?: return (record, folder)
        case .readOnly?: throw ModelLibrary.Error.readOnlyModel(name)       // another program's, or the bootstrap's
        case .file?, .notDownloaded?, nil: throw ModelLibrary.Error.modelNotFound(name)
        }
    }

    /// Locks the whole library (`.lock`) for a short change: registering or deleting a model.
    func lock() async throws -> FileLock {
        try createRoot()
        return try await FileLock.acquire(root.appending(path: ".lock"))
    }

    /// Creates the library's folder if needed.
    func createRoot() throws {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw ModelLibrary.Error.storageFailed(path: root.path, reason: "cannot create it: \(SystemErrorText.describe(error))")
        }
    }

    /// Creates a working folder of the library (`.downloads`, `.staging`) if needed, and checks
    /// that it is a real folder: one that is a link would send files outside the library.
    func createWorkFolder(_ name: String) throws -> URL {
        try createRoot()
        let folder = root.appending(path: name)
        if LibraryFiles.kind(at: folder) == .missing, mkdir(folder.path, 0o755) != 0, errno != EEXIST {
            throw LibraryFiles.failure(folder, "cannot create it")
        }
        guard LibraryFiles.kind(at: folder) == .directory else {
            throw ModelLibrary.Error.storageFailed(path: folder.path, reason: "not a folder (a symbolic link or a file); move it away")
        }
        return folder
    }

    /// The record in `folder`'s `metadata.json`, or nil when it is missing, not a regular
    /// file, over 1 MiB or not a record. Source URLs that a record written by an older version
    /// still holds with a user name and password are read without them.
    static func readRecord(in folder: URL) -> ModelLibrary.Record? {
        guard let data = try? LibraryFiles.readSmallFile(at: folder.appending(path: "metadata.json"), limit: 1 << 20),
              var record = try? ModelLibrary.Record.decoder.decode(ModelLibrary.Record.self, from: data) else {
            return nil
        }
        record.sourceURLs = record.sourceURLs.map(DownloadCredential.redacted)
        return record
    }
}

extension ModelLibrary.Record {
    /// The model's folder in a library (for records of ``ModelLibrary/models()``, whose id
    /// is checked to be that folder's name).
    func folder(in root: URL) -> URL { root.appending(path: id) }
}
