import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Model library storage")
struct ModelLibraryStorageTests {
    @Test("SHA-256 (libcrypto) agrees with the standard test vector and with coreutils")
    func sha256() throws {
        let folder = try TemporaryDirectory()
        #expect(SHA256Digest.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let file = try LibraryFixtures.smallModel(in: folder.url)
        #expect(try SHA256Digest.file(at: file) == LibraryFixtures.coreutilsSHA256(of: file))
    }

    @Test("importing by copy keeps the original, twice gives one entry, and metadata.json says what the header says")
    func importByCopy() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let source = try LibraryFixtures.smallModel(in: folder.url)
        let record = try await library.importModel(at: source)
        let again = try await library.importModel(at: source)
        #expect(record == again)
        #expect(FileManager.default.fileExists(atPath: source.path))
        #expect(try await library.models() == [record])
        #expect(record.name == "Tiny Test Model" && record.id == "tiny-test-model-" + record.sha256.prefix(8))
        #expect(record.sha256 == (try LibraryFixtures.coreutilsSHA256(of: source)))
        #expect(record.architecture == "llama" && record.sourceURLs.isEmpty)

        let metadata = library.root.appending(path: record.id).appending(path: "metadata.json")
        let json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: metadata)) as? [String: Any])
        for key in ["id", "name", "file_name", "bytes", "sha256", "source_urls", "architecture", "parameter_count",
                    "has_chat_template", "added_at"] {
            #expect(json[key] != nil, "metadata.json lacks \(key)")
        }
        #expect(json["parameter_count"] as? Int == 1 << 20)
    }

    @Test("importing by move removes the original; the real model then loads from the library")
    func importByMove() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let copy = folder.file("gemma-copy.gguf")
        try FileManager.default.copyItem(at: TestModel.url(), to: copy)
        let record = try await library.importModel(at: copy, moving: true, name: "My Gemma")
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        #expect(record.sha256 == LibraryFixtures.gemmaSHA256 && record.name == "My Gemma")
        let url = try #require(try await library.locate("My Gemma"))
        let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 256))
        #expect(try model.tokenize("hello").count > 0)
    }

    @Test("importing a file that is not GGUF fails with the file's path and adds nothing")
    func importInvalid() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let bad = folder.file("notes.gguf")
        try Data("just some text, not a model".utf8).write(to: bad)
        await #expect {
            try await library.importModel(at: bad)
        } throws: { error in
            guard case GGUFFile.Error.invalidFile(let path, _) = error else { return false }
            return path == bad.path
        }
        #expect(try await library.models().isEmpty)
    }

    @Test("delete runs the callback first (file still there), then removes the model; unknown ids are typed errors")
    func delete() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url))
        let file = library.url(of: record)
        let sawFile = Mutex(false)
        try await library.delete(record.id) { deleted in
            sawFile.withLock { $0 = deleted == record && FileManager.default.fileExists(atPath: file.path) }
        }
        #expect(sawFile.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try await library.models().isEmpty)
        await #expect(throws: ModelLibrary.Error.modelNotFound(record.id)) { try await library.delete(record.id) }
    }

    @Test("a crash mid-import or mid-download leaves nothing listed")
    func incompleteWritesAreNotListed() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url))
        // What a crash could leave: a staging folder, a partial download, a model folder without its file.
        let staging = library.root.appending(path: ".staging/crashed")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try LibraryFixtures.smallModel(in: staging, name: "half.gguf")
        try Data(count: 10).write(to: library.root.appending(path: ".downloads-crash.partial"))
        let orphan = library.root.appending(path: "orphan-12345678")
        try FileManager.default.createDirectory(at: orphan, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: library.root.appending(path: record.id).appending(path: "metadata.json"),
                                         to: orphan.appending(path: "metadata.json"))
        try FileManager.default.removeItem(at: library.url(of: record))
        #expect(try await library.models().isEmpty)
    }

    @Test("a stale selection resolves to a reason, not an error")
    func staleSelection() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url))
        let stored = record.selection.storageValue
        #expect(await library.resolve(ModelLibrary.Selection(stored)).url == library.url(of: record))
        try await library.delete(record.id)
        guard case .unavailable(let reason) = await library.resolve(ModelLibrary.Selection(stored)) else {
            Issue.record("a deleted model still resolves")
            return
        }
        #expect(reason.contains(record.id))
        #expect(await library.resolve(ModelLibrary.Selection("file:/nowhere/x.gguf")).url == nil)
        #expect(await library.resolve(ModelLibrary.Selection("nonsense")).url == nil)
        #expect(HuggingFaceCache(environment: ["HF_HUB_CACHE": folder.url.path]).file(for: "hf-cache:org/repo@main/../../etc/passwd") == nil)
        #expect(HuggingFaceCache(environment: ["HF_HUB_CACHE": folder.url.path]).file(for: "hf-cache:org/repo@main/m.gguf") != nil)
    }

    @Test("Hardening #7: importing a relative symbolic link (as in the Hugging Face cache) copies its target; moving a link is refused")
    func importSymlink() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let blobs = folder.file("blobs"), snapshot = folder.file("snapshots/rev")
        for directory in [blobs, snapshot] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let blob = try LibraryFixtures.smallModel(in: blobs, name: "abc123")
        let link = snapshot.appending(path: "tiny.gguf")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../../blobs/abc123")

        await #expect {
            try await library.importModel(at: link, moving: true)
        } throws: { error in
            guard case ModelLibrary.Error.invalidReference(let path, let reason) = error else { return false }
            return path == link.path && reason.contains("symbolic link") && reason.contains("by copying")
        }
        #expect(try await library.models().isEmpty)
        #expect(FileManager.default.fileExists(atPath: link.path) && FileManager.default.fileExists(atPath: blob.path))

        let record = try await library.importModel(at: link)
        #expect(try await library.models() == [record])
        #expect(record.fileName == "tiny.gguf")
        let stored = library.url(of: record)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: stored.path)) == nil)     // a real file
        #expect(try LibraryFixtures.coreutilsSHA256(of: stored) == LibraryFixtures.coreutilsSHA256(of: blob))
        #expect(FileManager.default.fileExists(atPath: link.path) && FileManager.default.fileExists(atPath: blob.path))
    }

    @Test("Hardening #8: names that would make a hidden folder still give a listed model")
    func dotName() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url), name: "..hidden")
        #expect(!record.id.hasPrefix("."))
        #expect(try await library.models() == [record])
        #expect(try await library.model("..hidden") == record)
    }

    @Test("Hardening #3: a metadata.json that names another folder is ignored, so delete cannot reach outside the library")
    func forgedMetadata() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url))
        let metadata = library.root.appending(path: record.id).appending(path: "metadata.json")
        let forged = try String(contentsOf: metadata, encoding: .utf8).replacingOccurrences(of: "\"\(record.id)\"", with: "\"..\"")
        try forged.write(to: metadata, atomically: true, encoding: .utf8)
        #expect(try await library.models().isEmpty)
        await #expect(throws: ModelLibrary.Error.self) { try await library.delete("..") }
        #expect(FileManager.default.fileExists(atPath: library.root.path))
    }

    @Test("Hardening #8: removeLeftovers removes abandoned work but leaves what a running import or download holds")
    func leftoversInUse() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url))
        let busy = try await library.makeStaging()                 // an import in progress
        try Data(count: 100).write(to: busy.file("half.gguf"))
        let downloads = try await library.createWorkFolder(".downloads")
        let running = PartialDownloadFiles(folder: downloads, url: URL(string: "http://127.0.0.1:1/a.gguf")!)
        let stopped = PartialDownloadFiles(folder: downloads, url: URL(string: "http://127.0.0.1:1/b.gguf")!)
        for files in [running, stopped] { try Data(count: 1000).write(to: files.partial) }
        let downloadLock = try await FileLock.acquire(running.lock)     // a download in progress
        try FileManager.default.createSymbolicLink(at: library.root.appending(path: ".trash-x"), withDestinationURL: folder.url)

        let cleanup = try await library.removeLeftovers()
        #expect(Set(cleanup.inUse) == [busy.folder, running.partial])
        #expect(Set(cleanup.removed.map(\.lastPathComponent)) == [stopped.partial.lastPathComponent, ".trash-x"])
        #expect(cleanup.freedBytes == 1000)
        #expect(FileManager.default.fileExists(atPath: busy.file("half.gguf").path) && FileManager.default.fileExists(atPath: running.partial.path))
        #expect(FileManager.default.fileExists(atPath: folder.url.path))          // the link went, not its target
        #expect(try await library.models() == [record])
        downloadLock.release()
        await library.discard(busy)
        #expect(try await library.removeLeftovers().removed == [running.partial])
    }
}
