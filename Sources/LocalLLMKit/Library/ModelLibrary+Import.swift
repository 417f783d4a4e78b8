import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ModelLibrary {
    /// Adds a local GGUF file to the library, by copy (the default) or by move. The header
    /// is validated first; the file is then copied (or moved) into a staging folder, its
    /// SHA-256 computed in chunks off the caller's actor and its header read again from the
    /// library's own copy, which alone is registered. Importing the same file twice gives one
    /// entry: the second import returns the record already there, unchanged (its name too);
    /// ``add(importing:moving:name:progress:)`` says so, and ``rename(_:to:)`` renames it.
    ///
    /// A symbolic link (the Hugging Face cache, the bootstrap's `default.gguf`) is followed:
    /// the file it points to is copied, so the library never holds a link. With `moving`, a
    /// link is refused: moving it would move only the link, and moving its target would take
    /// the file from the program that owns it.
    /// - Parameters:
    ///   - name: a display name, which finds the model before catalog ids do (see
    ///     ``entry(named:)``); trimmed, and refused when empty, over 200 characters, holding
    ///     control characters, `default`, a selection prefix (`library:`…), a path, a catalog id
    ///     (unless the file is that catalog model's), or another model's id or given name.
    ///     Without it, the file's `general.name`, else its file name, unless that would be
    ///     refused (then the next of these, or `model`).
    /// - Throws: ``GGUFFile/Error/fileNotFound(path:)``, ``GGUFFile/Error/invalidFile(path:reason:)``,
    ///   ``ModelLibrary/Error/invalidReference(_:reason:)`` (a link with `moving`, a file of the library itself),
    ///   ``ModelLibrary/Error/invalidName(reason:)``, ``ModelLibrary/Error/nameTaken(_:modelID:)``,
    ///   ``ModelLibrary/Error/insufficientDiskSpace(path:needed:available:)``
    ///   or ``ModelLibrary/Error/storageFailed(path:reason:)``.
    public func importModel(at url: URL, moving: Bool = false, name: String? = nil) async throws -> ModelLibrary.Record {
        try await add(importing: url, moving: moving, name: name).record
    }

    /// Imports a local GGUF file like ``importModel(at:moving:name:)``, reporting progress
    /// and whether the model was already in the library (the same SHA-256).
    ///
    /// ```swift
    /// let addition = try await library.add(importing: url) { print($0.phase, $0.fraction) }
    /// if addition.wasAlreadyInLibrary { print("already there as \(addition.record.id)") }
    /// ```
    /// - Parameters:
    ///   - name: a display name for a new model; a model already in the library keeps its own.
    ///   - progress: called, off the caller's actor, after each 4 MiB copied (or hashed, for a
    ///     file moved into the library).
    /// - Returns: the record, and whether it was already there.
    /// - Throws: what ``importModel(at:moving:name:)`` throws.
    public func add(importing url: URL, moving: Bool = false, name: String? = nil,
                    progress: (@Sendable (ModelLibrary.ImportProgress) -> Void)? = nil) async throws -> ModelLibrary.Addition {
        let displayName = try name.map(ModelLibrary.Record.validatedName)
        let source = try importSource(url, moving: moving)
        _ = try GGUFFile(contentsOf: source)                    // fail fast, before copying gigabytes
        if let displayName, let catalogEntry = Self.catalogEntry(named: displayName), LibraryFiles.size(of: source) != catalogEntry.bytes,
           let problem = Self.nameProblem(displayName, sha256: nil, among: []) {
            throw problem                                       // not that catalog model's file: its size differs
        }
        try createRoot()
        let staging = try makeStaging()
        let fileName = Self.storedFileName(url.lastPathComponent)
        let target = staging.file(fileName)
        var renamed = false
        do {
            let sha256: String
            if moving && LibraryFiles.attemptRename(source, to: target) {
                renamed = true
                let total = LibraryFiles.size(of: target)
                sha256 = try await Self.sha256(of: target, progress: Self.reporter(progress, phase: .hashing, total: total))
            } else {
                if moving && errno != EXDEV { throw LibraryFiles.failure(source, "cannot move it into the library") }
                let total = LibraryFiles.size(of: source)
                try ensureSpace(for: total)
                sha256 = try await Self.copyHashing(source, to: target, progress: Self.reporter(progress, phase: .copying, total: total))
            }
            let file: GGUFFile
            do {
                file = try GGUFFile(contentsOf: target)
            } catch GGUFFile.Error.invalidFile(_, let reason) {
                throw GGUFFile.Error.invalidFile(path: url.path, reason: "\(reason) (the file changed while it was imported)")
            }
            let record = ModelLibrary.Record(file: file, sha256: sha256, name: displayName, fileName: fileName, sourceURLs: [])
            let installed = try await commit(staging, record: record,
                                             fallbackNames: ModelLibrary.Record.fallbackNames(file: file, suggested: nil, fileName: fileName))
            if moving && !renamed { unlink(source.path) }       // moved across volumes: the library has its copy now
            return installed
        } catch {
            if renamed && LibraryFiles.kind(at: source) == .missing { _ = LibraryFiles.attemptRename(target, to: source) }   // give the file back
            discard(staging)
            throw error
        }
    }

    /// A byte counter's callback that reports `phase` of an import to `progress`, if any.
    private static func reporter(_ progress: (@Sendable (ModelLibrary.ImportProgress) -> Void)?, phase: ModelLibrary.ImportProgress.Phase,
                                 total: Int64) -> (@Sendable (Int64) -> Void)? {
        guard let progress else { return nil }
        return { bytes in progress(ModelLibrary.ImportProgress(phase: phase, bytes: bytes, total: total)) }
    }

    /// The regular file an import reads: `url` itself, or the file its symbolic link points to.
    private func importSource(_ url: URL, moving: Bool) throws -> URL {
        let source: URL
        switch LibraryFiles.kind(at: url) {
        case .missing:
            throw GGUFFile.Error.fileNotFound(path: url.path)
        case .directory:
            throw GGUFFile.Error.invalidFile(path: url.path, reason: "it is a directory, not a file")
        case .other:
            throw GGUFFile.Error.invalidFile(path: url.path, reason: "it is not a regular file (a device, FIFO or socket)")
        case .file:
            source = url
        case .symbolicLink:
            guard let resolved = LibraryFiles.resolvedPath(url) else {
                throw GGUFFile.Error.invalidFile(path: url.path, reason: "it is a symbolic link whose target is missing or loops")
            }
            guard !moving else {
                throw ModelLibrary.Error.invalidReference(url.path, reason: "it is a symbolic link (to \(resolved)); moving it would move only the link, so import it by copying to store the file it points to")
            }
            source = URL(filePath: resolved)
            guard LibraryFiles.kind(at: source) == .file else {
                throw GGUFFile.Error.invalidFile(path: url.path, reason: "it is a symbolic link to \(resolved), which is not a regular file")
            }
        }
        if moving, let file = LibraryFiles.resolvedPath(source), let library = LibraryFiles.resolvedPath(root),
           file.hasPrefix(library + "/") {
            throw ModelLibrary.Error.invalidReference(url.path, reason: "it is a file of the library itself and cannot be moved into it")
        }
        return source
    }

    /// The SHA-256 of a file, computed on a background task that stops when the caller is cancelled.
    /// - Parameters:
    ///   - progress: called after each chunk with the bytes hashed so far.
    static func sha256(of url: URL, progress: (@Sendable (Int64) -> Void)? = nil) async throws -> String {
        let task = Task.detached(priority: .utility) { try SHA256Digest.file(at: url, progress: progress) }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Throws unless `bytes` (plus a small margin) fit on the library's volume.
    func ensureSpace(for bytes: Int64) throws {
        guard let available = freeSpace(root) else { return }
        let needed = bytes + 16 << 20
        if available < needed {
            throw ModelLibrary.Error.insufficientDiskSpace(path: root.path, needed: needed, available: available)
        }
    }

    /// A file name with no folder parts: not empty, no `/`, `\`, `..` or control characters,
    /// not hidden, at most 255 bytes. Used to check names a caller or a `metadata.json` gives.
    /// - Throws: ``ModelLibrary/Error/invalidReference(_:reason:)``.
    static func safeFileName(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), !name.contains("\\"), !name.hasPrefix("."),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ModelLibrary.Error.invalidReference(name, reason: "a file name must not contain folders, `..`, control characters or a leading dot")
        }
        return name
    }

    /// The name under which a file taken from a path or URL is stored: leading dots and
    /// spaces dropped (never a hidden file), `/`, `\` and control characters replaced by `-`,
    /// at most 200 bytes; `model.gguf` when nothing usable is left (or it would be
    /// `metadata.json`).
    static func storedFileName(_ name: String) -> String {
        let replaced = String(String.UnicodeScalarView(name.unicodeScalars.map {
            $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control ? "-" : $0
        }))
        var cleaned = Substring(replaced.trimmingCharacters(in: .whitespaces))
        while cleaned.utf8.count > 200 { cleaned.removeFirst() }       // keep the extension
        cleaned = cleaned.drop { $0 == "." || $0.isWhitespace }
        return cleaned.isEmpty || cleaned == "metadata.json" ? "model.gguf" : String(cleaned)
    }
}
