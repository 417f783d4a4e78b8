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
    /// With `adapters`, the copy carries LoRA adapters (what Ollama's `ADAPTER` line does): each
    /// is checked against the model as loading checks it, then copied into the copy's folder,
    /// and loading the copy by its library name applies them (``Entry/adapters``); the source's
    /// own adapters come along first.
    ///
    /// ```swift
    /// let copy = try await library.copy("gemma-3-270m", to: "my-gemma")
    /// let tuned = try await library.copy("gemma-3-270m", to: "gemma-legal",
    ///                                    adapters: [.init(url: URL(filePath: "legal-lora.gguf"), scale: 0.8)])
    /// ```
    /// - Parameters:
    ///   - idOrName: the model, found as ``entry(named:)`` finds it.
    ///   - name: the copy's name, checked as ``rename(_:to:)`` checks one.
    ///   - adapters: LoRA adapters for the copy to carry, at their scales.
    /// - Returns: the copy's record.
    /// - Throws: ``ModelLibrary/Error/modelNotFound(_:)``, ``ModelLibrary/Error/ambiguousName(_:ids:)``,
    ///   ``ModelLibrary/Error/invalidName(reason:)``, ``ModelLibrary/Error/nameTaken(_:modelID:)``,
    ///   ``ModelLibrary/Error/insufficientDiskSpace(path:needed:available:)``,
    ///   ``ModelLibrary/Error/storageFailed(path:reason:)``, or, before anything is written,
    ///   ``LocalModel/Error/invalidAdapter(path:reason:)`` for an adapter that cannot apply to the
    ///   model, and ``LocalModel/Error/invalidOption(name:reason:)`` for too many adapters.
    @discardableResult
    public func copy(_ idOrName: String, to name: String, adapters: [LocalModel.Configuration.Adapter] = []) async throws -> ModelLibrary.Record {
        let newName = try ModelLibrary.Record.validatedName(name)
        let source: (record: ModelLibrary.Record, folder: URL)
        switch try match(idOrName) {
        case .managed(let record, let folder)?:
            source = (record, folder)
        case .readOnly(let entry)?:
            let imported = try await importForCopy(entry.url, name: newName, adapters: adapters)
            if imported.isCopy { return imported.record }
            source = (imported.record, imported.record.folder(in: root))
        case .file(let url)?:
            let imported = try await importForCopy(url, name: newName, adapters: adapters)
            if imported.isCopy { return imported.record }
            source = (imported.record, imported.record.folder(in: root))
        case .notDownloaded?, nil:
            throw ModelLibrary.Error.modelNotFound(idOrName)
        }
        // Refused before any file is linked; checked again under the lock.
        if let problem = Self.nameProblem(newName, sha256: source.record.sha256, among: try models()) { throw problem }
        let carried = source.record.adapters ?? []
        if carried.count + adapters.count > ModelLibrary.Record.maximumAdapters {
            throw LocalModel.Error.invalidOption(name: "adapters", reason: "a model carries at most \(ModelLibrary.Record.maximumAdapters) adapters")
        }
        try await Self.check(adapters, forModelAt: source.folder.appending(path: source.record.fileName))
        let staging = try makeStaging()
        do {
            try await linkFiles(of: source.folder, into: staging)
            var added: [ModelLibrary.Record.Adapter] = []
            for adapter in adapters {
                let fileName = Self.freeAdapterName(in: staging.folder)
                try ensureSpace(for: LibraryFiles.size(of: adapter.url))
                let sha256 = try await Self.copyHashing(adapter.url, to: staging.file(fileName))
                added.append(.init(fileName: fileName, scale: adapter.scale, sha256: sha256))
            }
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
            record.adapters = carried + added
            if record.adapters?.isEmpty == true { record.adapters = nil }
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

    /// Imports a model from outside the library for ``copy(_:to:adapters:)``: without adapters,
    /// under the copy's name (`isCopy`: that is the copy, unless the library held the file
    /// already); with adapters, as it is (checked first, before gigabytes are copied), for the
    /// copy to be made from.
    private func importForCopy(_ url: URL, name: String, adapters: [LocalModel.Configuration.Adapter]) async throws
        -> (record: ModelLibrary.Record, isCopy: Bool) {
        if adapters.isEmpty {
            let addition = try await add(importing: url, name: name)
            return (addition.record, !addition.wasAlreadyInLibrary)
        }
        try await Self.check(adapters, forModelAt: url)
        return (try await add(importing: url).record, false)
    }

    /// Checks each adapter against the model at `url`, off the library's actor.
    private static func check(_ adapters: [LocalModel.Configuration.Adapter], forModelAt url: URL) async throws {
        guard !adapters.isEmpty else { return }
        try await Task.detached { for adapter in adapters { try LocalModel.checkAdapter(adapter, forModelAt: url) } }.value
    }

    /// The first `adapter-N.gguf` that `folder` does not hold.
    private static func freeAdapterName(in folder: URL) -> String {
        var number = 1
        while LibraryFiles.kind(at: folder.appending(path: "adapter-\(number).gguf")) != .missing { number += 1 }
        return "adapter-\(number).gguf"
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
