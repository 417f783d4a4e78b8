import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit

/// A download or import of a model the library already has: nothing is fetched or added,
/// the result says so, and ``ModelLibrary/rename(_:to:)`` renames; against the real HTTP
/// server on 127.0.0.1.
@Suite("Models already in the library", .serialized)
struct ModelDuplicateTests {
    let folder: TemporaryDirectory
    let served: URL
    let server: DownloadServer

    init() throws {
        (folder, served, server) = try LibraryFixtures.servedFolder { _, served in
            try LibraryFixtures.smallModel(in: served)
            try LibraryFixtures.smallModel(in: served, name: "other.gguf", title: "Other Model")
        }
    }

    @Test("a URL already downloaded (no SHA-256 given), or a mirror of it, is answered from the library without a request")
    func sameURL() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = server.url("/files/tiny.gguf")
        let first = try await library.download(ModelLibrary.DownloadRequest(urls: [url])).addition
        #expect(!first.wasAlreadyInLibrary)
        #expect(try server.log().map(\.path) == ["/files/tiny.gguf"])

        let again = try await library.download(ModelLibrary.DownloadRequest(urls: [url], name: "Ignored")).addition
        #expect(again == ModelLibrary.Addition(record: first.record, wasAlreadyInLibrary: true))
        #expect(again.record.name == "Tiny Test Model")              // the request's name names new models only
        // The known URL as a mirror after an unknown one: still nothing fetched.
        let mirrored = try await library.download(ModelLibrary.DownloadRequest(urls: [server.url("/files/elsewhere.gguf"), url])).value
        #expect(mirrored == first.record)
        #expect(try server.log().isEmpty)
        #expect(try await library.models() == [first.record])
    }

    @Test("another URL with the SHA-256 of a model in the library makes no request; a new file still downloads")
    func sameSHA256() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let sha256 = try LibraryFixtures.coreutilsSHA256(of: served.appending(path: "tiny.gguf"))
        let first = try await library.download(ModelLibrary.DownloadRequest(urls: [server.url("/files/tiny.gguf")])).addition
        _ = try server.log()
        let copy = try await library.download(ModelLibrary.DownloadRequest(urls: [server.url("/slow/tiny.gguf")], sha256: sha256)).addition
        #expect(copy.wasAlreadyInLibrary && copy.record == first.record)
        #expect(try server.log().isEmpty)

        let other = try await library.download(ModelLibrary.DownloadRequest(urls: [server.url("/files/other.gguf")])).addition
        #expect(!other.wasAlreadyInLibrary && other.record.name == "Other Model")
        #expect(try server.log().map(\.path) == ["/files/other.gguf"])
    }

    @Test("rename replaces metadata.json whole, keeps the id, and refuses bad names and unknown models")
    func rename() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: served.appending(path: "tiny.gguf"))
        let renamed = try await library.rename(record.id, to: "  Renamed Tiny ")
        #expect(renamed.name == "Renamed Tiny" && renamed.id == record.id && renamed.sha256 == record.sha256)
        #expect(try await library.models() == [renamed])
        #expect(try await library.model("Renamed Tiny") == renamed)
        let files = try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: record.id).path).sorted()
        #expect(files == ["metadata.json", "tiny.gguf"])                 // no temporary file left
        // A new library value (another process) reads the new name.
        #expect(try await LibraryFixtures.library(in: folder.url).models().map(\.name) == ["Renamed Tiny"])

        await #expect(throws: ModelLibrary.Error.invalidName(reason: "a model name cannot be empty")) {
            try await library.rename(record.id, to: "  ")
        }
        await #expect {
            try await library.rename(record.id, to: "two\nlines")
        } throws: { error in
            if case ModelLibrary.Error.invalidName = error { return true }
            return false
        }
        await #expect(throws: ModelLibrary.Error.modelNotFound("nothing-12345678")) {
            try await library.rename("nothing-12345678", to: "Name")
        }
        #expect(try await library.models().map(\.name) == ["Renamed Tiny"])
    }

    @Test("an import of a file already in the library says so and keeps its name; imports report copy and hash progress")
    func importProgressAndDuplicate() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let source = served.appending(path: "tiny.gguf")
        let total = Int64(try Data(contentsOf: source).count)
        let updates = Mutex<[ModelLibrary.ImportProgress]>([])
        let first = try await library.add(importing: source, name: "First") { progress in updates.withLock { $0.append(progress) } }
        #expect(!first.wasAlreadyInLibrary && first.record.name == "First")
        let copied = updates.withLock { $0 }
        #expect(copied.map(\.phase) == [.copying, .copying])            // two chunks of at most 4 MiB
        #expect(copied.map(\.bytes) == [4 << 20, total] && copied.allSatisfy { $0.total == total })
        #expect(copied.last?.fraction == 1)

        let again = try await library.add(importing: source, name: "Second")
        #expect(again == ModelLibrary.Addition(record: first.record, wasAlreadyInLibrary: true))

        // Moved (same volume): only hashed.
        let moved = folder.file("moved.gguf")
        try LibraryFixtures.smallModel(in: folder.url, name: "moved.gguf", title: "Moved")
        updates.withLock { $0 = [] }
        let addition = try await library.add(importing: moved, moving: true) { progress in updates.withLock { $0.append(progress) } }
        #expect(!addition.wasAlreadyInLibrary && addition.record.name == "Moved")
        #expect(updates.withLock { $0 }.map(\.phase) == [.hashing, .hashing])
        #expect(updates.withLock { $0 }.last?.bytes == total)
    }

    @Test("copy adds a second model sharing the file (a hard link): deleting one leaves the other whole; bad names are refused")
    func copy() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.importModel(at: served.appending(path: "tiny.gguf"))
        let copy = try await library.copy(record.name, to: "my-tiny")
        #expect(copy.name == "my-tiny" && copy.isNameGiven && copy.sha256 == record.sha256 && copy.id != record.id)
        #expect(Set(try await library.models().map(\.id)) == [record.id, copy.id])
        #expect(try await library.model("my-tiny") == copy)
        // One file on disk, two names for it.
        let original = try FileManager.default.attributesOfItem(atPath: library.url(of: record).path)
        let linked = try FileManager.default.attributesOfItem(atPath: library.url(of: copy).path)
        #expect(original[.systemFileNumber] as? Int == linked[.systemFileNumber] as? Int)
        #expect(linked[.referenceCount] as? Int == 2)

        await #expect(throws: ModelLibrary.Error.nameTaken("my-tiny", modelID: copy.id)) {
            try await library.copy(record.id, to: "my-tiny")
        }
        await #expect(throws: ModelLibrary.Error.modelNotFound("nothing-12345678")) {
            try await library.copy("nothing-12345678", to: "Name")
        }
        await #expect {
            try await library.copy(record.id, to: "a/b")
        } throws: { error in
            if case ModelLibrary.Error.invalidName = error { return true }
            return false
        }
        try await library.delete(record.id)
        #expect(try await library.models() == [copy])
        let file = try GGUFFile(modelAt: library.url(of: copy))
        #expect(file.name == "Tiny Test Model")
        let staging = library.root.appending(path: ".staging")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []).isEmpty)   // nothing left half-made
    }
}
