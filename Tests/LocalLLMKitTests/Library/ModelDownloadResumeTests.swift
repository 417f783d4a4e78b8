import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Issue #10 (hardening): resumed downloads never join two versions of a file, and what is
/// registered is verified; against the download server on 127.0.0.1.
@Suite("Model download resumes", .serialized)
struct ModelDownloadResumeTests {
    let folder: TemporaryDirectory
    let served: URL
    let server: DownloadServer

    init() throws {
        (folder, served, server) = try LibraryFixtures.servedFolder { _, served in
            try LibraryFixtures.smallModel(in: served, name: "old.gguf", title: "Old version")
            try LibraryFixtures.smallModel(in: served, name: "new.gguf", title: "New version, other bytes")
        }
    }

    func sha256(_ name: String) throws -> String {
        try LibraryFixtures.coreutilsSHA256(of: served.appending(path: name))
    }

    @Test("Hardening #6: when the ETag changes between attempts, If-Range makes the server send the new file whole")
    func versionChangesBetweenAttempts() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [server.url("/swap/1000000/old.gguf/new.gguf")])).value
        #expect(record.sha256 == (try sha256("new.gguf")) && record.name == "New version, other bytes")
        let log = try server.log()
        #expect(log.map(\.range) == [nil, "bytes=1000000-"] && log.map(\.status) == [200, 200])
        #expect(log[1].ifRange != nil)
    }

    @Test("Hardening #6: a server that ignores If-Range and sends a 206 of another version is caught; the download starts over")
    func serverIgnoringIfRange() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [server.url("/swapignoring/1000000/old.gguf/new.gguf")])).value
        #expect(record.sha256 == (try sha256("new.gguf")))
        let log = try server.log()
        #expect(log.map(\.range) == [nil, "bytes=1000000-", nil] && log.map(\.status) == [200, 206, 200])
    }

    @Test("Hardening #6: bytes whose version nothing identifies (no ETag, no Last-Modified) are never resumed")
    func noValidator() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = server.url("/novalidator/new.gguf")
        let files = PartialDownloadFiles(folder: library.root.appending(path: ".downloads"), url: url)
        try FileManager.default.createDirectory(at: library.root.appending(path: ".downloads"), withIntermediateDirectories: true)
        try writePrefix(of: served.appending(path: "old.gguf"), count: 1_000_000, to: files.partial)   // no validator stored
        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [url])).value
        #expect(record.sha256 == (try sha256("new.gguf")))
        #expect(try server.log().map(\.range) == [nil])
    }

    @Test("Hardening #6: a resume that the stored size contradicts starts over; a finished partial of the same version is not fetched again")
    func storedSize() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = server.url("/files/new.gguf")
        let downloads = library.root.appending(path: ".downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let files = PartialDownloadFiles(folder: downloads, url: url)
        let size = Int64(try Data(contentsOf: served.appending(path: "new.gguf")).count)
        // A partial longer than the size its validator says: damaged, thrown away.
        try Data(count: Int(size) + 10).write(to: files.partial)
        try ResumeValidator(url: url, response: TransferResult(statusCode: 200, totalBytes: size, resumed: false, entityTag: "\"x\""))
            .write(to: files.validator)
        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [url])).value
        #expect(record.sha256 == (try sha256("new.gguf")))
        #expect(try server.log().map(\.range) == [nil])
        try await library.delete(record.id)

        // A whole file left by a run that stopped before registering it is checked, not fetched.
        try FileManager.default.copyItem(at: served.appending(path: "new.gguf"), to: files.partial)
        try ResumeValidator(url: url, response: TransferResult(statusCode: 200, totalBytes: size, resumed: false, entityTag: "\"x\""))
            .write(to: files.validator)
        let again = try await library.download(ModelLibrary.DownloadRequest(urls: [url], sha256: try sha256("new.gguf"))).value
        #expect(again.sha256 == record.sha256)
        #expect(try server.log().isEmpty)
    }

    @Test("Hardening #6: without a SHA-256, a file whose size nobody announced is not registered; with one it is")
    func unknownSize() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = server.url("/chunked/new.gguf")
        await #expect {
            try await library.download(ModelLibrary.DownloadRequest(urls: [url])).value
        } throws: { error in
            guard case ModelLibrary.Error.downloadFailed(let failedURL, let reason) = error else { return false }
            return failedURL == url.absoluteString && reason.contains("did not say how large") && reason.contains("SHA-256")
        }
        #expect(try await library.models().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: ".downloads").path).isEmpty)
        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [url], sha256: try sha256("new.gguf"))).value
        #expect(record.sha256 == (try sha256("new.gguf")))
    }

    @Test("Hardening #5: two libraries on the same folder (as two processes would) download one URL once, and agree")
    func twoLibraries() async throws {
        let first = LibraryFixtures.library(in: folder.url), second = LibraryFixtures.library(in: folder.url)
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/hold/1000000/new.gguf")])
        let a = first.download(request)
        for await progress in a.progress where progress.bytes > 0 { break }
        let b = second.download(request)
        var waited = false
        for await progress in b.progress where progress.isWaiting {
            waited = true
            break
        }
        try server.control("/control/release")                 // the first download may go on now
        let (recordA, recordB) = try await (a.value, b.value)
        #expect(waited && recordA == recordB)
        #expect(try await first.models() == [recordA])
        #expect(try server.log().count == 1)
    }

    @Test("Hardening #16b: DNS failures and refused connections are not retried and say so")
    func causes() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = URL(string: "http://nonexistent.invalid/model.gguf")!
        await #expect {
            try await library.download(ModelLibrary.DownloadRequest(urls: [url])).value
        } throws: { error in
            guard case ModelLibrary.Error.downloadFailed(let failedURL, let reason) = error else { return false }
            return failedURL == url.absoluteString && reason == "the host nonexistent.invalid could not be resolved (DNS lookup failed)"
        }
        let problem = TransferFailure.connectionProblem(host: "127.0.0.1", port: server.port)
        #expect(problem == nil)                                   // the server is listening
    }
}
