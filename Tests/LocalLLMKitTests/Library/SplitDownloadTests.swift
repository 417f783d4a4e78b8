import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Downloads of split models (`NAME-00001-of-0000N.gguf`) from the real test server on 127.0.0.1.
@Suite("Split model downloads", .serialized)
struct SplitDownloadTests {
    let folder: TemporaryDirectory
    let served: URL
    let parts: [URL]
    let server: DownloadServer

    init() throws {
        var parts: [URL] = []
        (folder, served, server) = try LibraryFixtures.servedFolder { folder, served in
            let whole = folder.file("whole.gguf")
            try GGUFBuilder.tinyModel().write(to: whole)
            parts = try GGUFSplitter.split(whole, into: 3, prefix: "tiny", in: served)
        }
        self.parts = parts
    }

    func size(_ url: URL) throws -> Int64 {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64)
    }

    @Test("pulling part 1 fetches every part (each resumed after a drop) into one folder; the model loads")
    func downloadsEveryPart() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let dropAt = 20_000
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/drop/\(dropAt)/tiny-00001-of-00003.gguf")])
        #expect(request.split?.count == 3)
        let record = try await library.download(request).value

        #expect(record.fileName == "tiny-00001-of-00003.gguf")
        #expect(record.bytes == (try parts.map(size).reduce(0, +)))
        #expect(record.sha256 == (try LibraryFixtures.coreutilsSHA256(of: parts[0])))
        #expect(record.sourceURLs == [server.url("/drop/\(dropAt)/tiny-00001-of-00003.gguf").absoluteString])
        let modelFolder = library.root.appending(path: record.id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: modelFolder.path).sorted()
                == ["metadata.json", "tiny-00001-of-00003.gguf", "tiny-00002-of-00003.gguf", "tiny-00003-of-00003.gguf"])
        for (index, part) in parts.enumerated() {
            let stored = modelFolder.appending(path: part.lastPathComponent)
            #expect(try LibraryFixtures.coreutilsSHA256(of: stored) == LibraryFixtures.coreutilsSHA256(of: part), "part \(index + 1)")
        }
        let log = try server.log()
        #expect(log.map(\.range) == [nil, "bytes=\(dropAt)-", nil, "bytes=\(dropAt)-", nil, "bytes=\(dropAt)-"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: ".downloads").path).isEmpty)

        let model = try await LocalModel.load(from: library.url(of: record), configuration: .init(contextLength: 64))
        #expect(model.file.partURLs.count == 3)
        #expect(model.file.parameterCount == record.parameterCount)

        // Pulled again: answered from the library, nothing fetched.
        #expect(try await library.download(request).value == record)
        #expect(try server.log().isEmpty)
    }

    @Test("a part missing on the server fails naming it, registers nothing, and the next pull resumes the rest")
    func missingPartOnServer() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let hidden = folder.file("hidden.gguf")
        try FileManager.default.moveItem(at: parts[2], to: hidden)
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/files/tiny-00001-of-00003.gguf")])
        await #expect {
            _ = try await library.download(request).value
        } throws: { error in
            guard case ModelLibrary.Error.downloadFailed(let url, let reason) = error else { return false }
            return url == server.url("/files/tiny-00003-of-00003.gguf").absoluteString && reason.contains("part 3 of 3")
                && reason.contains("404")
        }
        #expect(try await library.models().isEmpty)

        try FileManager.default.moveItem(at: hidden, to: parts[2])
        _ = try server.log()
        let record = try await library.download(request).value
        #expect(record.bytes == (try parts.map(size).reduce(0, +)))
        // Parts 1 and 2 were kept whole: only part 3 is fetched.
        #expect(try server.log().map(\.path) == ["/files/tiny-00003-of-00003.gguf"])
    }

    @Test("a part of another model on the server is refused and nothing is registered")
    func foreignPartOnServer() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let otherFolder = folder.file("other")
        try FileManager.default.createDirectory(at: otherFolder, withIntermediateDirectories: true)
        let otherWhole = folder.file("other.gguf")
        try GGUFBuilder.tinyModel(.init(layers: 3)).write(to: otherWhole)
        let other = try GGUFSplitter.split(otherWhole, into: 3, prefix: "tiny", in: otherFolder)
        try FileManager.default.removeItem(at: parts[1])
        try FileManager.default.copyItem(at: other[1], to: parts[1])
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/files/tiny-00001-of-00003.gguf")])
        await #expect {
            _ = try await library.download(request).value
        } throws: { error in
            guard case ModelLibrary.Error.downloadFailed(_, let reason) = error else { return false }
            return reason.contains("not a usable split GGUF model") && reason.contains("tiny-00002-of-00003.gguf")
        }
        #expect(try await library.models().isEmpty)
    }

    @Test("a SHA-256 for a split model, a URL of another part, and mirrors of other counts are refused")
    func refusedRequests() throws {
        let first = server.url("/files/tiny-00001-of-00003.gguf")
        #expect(throws: ModelLibrary.Error.checksumForSplitModel(url: first.absoluteString)) {
            _ = try ModelLibrary.DownloadRequest(urls: [first], sha256: String(repeating: "a", count: 64))
        }
        #expect {
            _ = try ModelLibrary.DownloadRequest(urls: [server.url("/files/tiny-00002-of-00003.gguf")])
        } throws: { error in
            guard case ModelLibrary.Error.invalidReference(_, let reason) = error else { return false }
            return reason.contains("tiny-00001-of-00003.gguf")
        }
        #expect(throws: ModelLibrary.Error.self) {
            _ = try ModelLibrary.DownloadRequest(urls: [first, server.url("/files/tiny.gguf")])
        }
        #expect(try ModelLibrary.DownloadRequest(urls: [server.url("/files/whole.gguf")]).split == nil)
    }
}
