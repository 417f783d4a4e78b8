import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Downloads against a real HTTP server on 127.0.0.1 that injects faults.
@Suite("Model downloads", .serialized)
struct ModelDownloadTests {
    let folder: TemporaryDirectory
    let served: URL
    let server: DownloadServer

    init() throws {
        (folder, served, server) = try LibraryFixtures.servedFolder { _, served in
            try FileManager.default.createSymbolicLink(at: served.appending(path: "gemma.gguf"), withDestinationURL: TestModel.url())
            try LibraryFixtures.smallModel(in: served)
        }
    }

    var tinySHA256: String {
        get throws { try LibraryFixtures.coreutilsSHA256(of: served.appending(path: "tiny.gguf")) }
    }

    @Test("a full download of the real model is verified, registered, resolvable and loadable")
    func fullDownload() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/files/gemma.gguf")], sha256: LibraryFixtures.gemmaSHA256,
                                               name: "Gemma from the test server")
        let download = library.download(request)
        var updates: [ModelLibrary.Download.Progress] = []
        for await progress in download.progress { updates.append(progress) }
        let record = try await download.value

        #expect(record.sha256 == LibraryFixtures.gemmaSHA256)
        #expect(record.bytes == 253_113_024)
        #expect(record.architecture == "gemma3")
        #expect(record.quantization == "Q4_K_M")
        #expect(record.sourceURLs == [server.url("/files/gemma.gguf").absoluteString])
        #expect(try await library.models() == [record])
        let last = try #require(updates.last)
        #expect(last.bytes == 253_113_024 && last.total == 253_113_024 && last.fraction == 1)
        #expect(updates.map(\.bytes) == updates.map(\.bytes).sorted())
        #expect(try LibraryFixtures.coreutilsSHA256(of: library.url(of: record)) == LibraryFixtures.gemmaSHA256)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: ".downloads").path)
        #expect(leftovers.isEmpty)

        // The persisted selection finds it again from a new library value (as after a restart).
        let reopened = LibraryFixtures.library(in: folder.url)
        let url = try #require(await reopened.resolve(ModelLibrary.Selection(record.selection.storageValue)).url)
        let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 256))
        let result = try await model.complete("The capital of France is", options: .init(maximumResponseTokens: 4, sampling: .greedy))
        #expect(!result.text.isEmpty)

        // A second request for the same file is answered from the library without a transfer.
        _ = try server.log()
        #expect(try await library.download(request).value == record)
        #expect(try server.log().isEmpty)
    }

    @Test("a dropped connection resumes with a Range request from the byte it reached")
    func resumesAfterDrop() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let dropAt = 50_000_000
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/drop/\(dropAt)/gemma.gguf")], sha256: LibraryFixtures.gemmaSHA256)
        let record = try await library.download(request).value
        #expect(record.sha256 == LibraryFixtures.gemmaSHA256)
        let log = try server.log()
        #expect(log.map(\.range) == [nil, "bytes=\(dropAt)-"])
    }

    @Test("a partial file left by an earlier run is resumed with If-Range, not downloaded again")
    func resumesAfterRestart() async throws {
        let sha256 = try tinySHA256
        let url = server.url("/files/tiny.gguf")
        try server.control("/control/drop/1000000")        // every response breaks after 1 MB
        await #expect(throws: ModelLibrary.Error.self) {
            try await LibraryFixtures.library(in: folder.url).download(ModelLibrary.DownloadRequest(urls: [url], sha256: sha256)).value
        }
        let first = try server.log()
        #expect(first.map(\.range) == [nil, "bytes=1000000-", "bytes=2000000-"])
        let etag = try #require(first.first?.ifRange == nil ? first.last?.ifRange : nil)

        try server.control("/control/drop/0")
        let library = LibraryFixtures.library(in: folder.url)    // a new value, as after a restart
        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [url], sha256: sha256)).value
        #expect(record.sha256 == sha256)
        let resumed = try server.log()
        #expect(resumed.map(\.range) == ["bytes=3000000-"] && resumed.map(\.ifRange) == [etag] && resumed.map(\.status) == [206])
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: ".downloads").path).isEmpty)
    }

    @Test("a server that ignores Range makes the download start over cleanly")
    func serverIgnoringRange() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let sha256 = try tinySHA256
        let url = server.url("/norange/tiny.gguf")
        let files = PartialDownloadFiles(folder: library.root.appending(path: ".downloads"), url: url)
        try FileManager.default.createDirectory(at: library.root.appending(path: ".downloads"), withIntermediateDirectories: true)
        try Data(repeating: 0xAB, count: 12_345).write(to: files.partial)
        try ResumeValidator(url: url, response: TransferResult(statusCode: 200, totalBytes: nil, resumed: false, entityTag: "\"v1\""))
            .write(to: files.validator)

        let record = try await library.download(ModelLibrary.DownloadRequest(urls: [url], sha256: sha256)).value
        #expect(record.sha256 == sha256)
        #expect(record.bytes == Int64(try Data(contentsOf: served.appending(path: "tiny.gguf")).count))
        let log = try server.log()
        #expect(log.map(\.range) == ["bytes=12345-"] && log.map(\.ifRange) == ["\"v1\""] && log.map(\.status) == [200])
    }

    @Test("a 404 on the first mirror moves on to the second")
    func mirrorFallback() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/missing/tiny.gguf"), server.url("/files/tiny.gguf")],
                                               sha256: tinySHA256)
        let record = try await library.download(request).value
        #expect(record.sourceURLs.count == 2)
        #expect(try server.log().map(\.path) == ["/missing/tiny.gguf", "/files/tiny.gguf"])
    }

    @Test("a wrong SHA-256 deletes the file, registers nothing and names the URL")
    func checksumMismatch() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let wrong = String(repeating: "0", count: 64)
        let url = server.url("/files/tiny.gguf")
        await #expect {
            try await library.download(ModelLibrary.DownloadRequest(urls: [url], sha256: wrong)).value
        } throws: { error in
            guard case ModelLibrary.Error.checksumMismatch(let failedURL, let expected, let actual) = error else { return false }
            return failedURL == url.absoluteString && expected == wrong && actual == (try? tinySHA256)
        }
        #expect(try await library.models().isEmpty)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: ".downloads").path)
        #expect(leftovers.isEmpty)
    }

    @Test("bytes that are not a GGUF file are refused and deleted")
    func notGGUF() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = server.url("/garbage/70000")
        await #expect {
            try await library.download(ModelLibrary.DownloadRequest(urls: [url])).value
        } throws: { error in
            guard case ModelLibrary.Error.downloadFailed(let failedURL, let reason) = error else { return false }
            return failedURL == url.absoluteString && reason.contains("GGUF")
        }
        #expect(try await library.models().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.appending(path: ".downloads").path).isEmpty)
    }

    @Test("a Content-Length bigger than the body fails with the URL, after retries, registering nothing")
    func shortBody() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let url = server.url("/short/tiny.gguf")
        await #expect {
            try await library.download(ModelLibrary.DownloadRequest(urls: [url])).value
        } throws: { error in
            guard case ModelLibrary.Error.downloadFailed(let failedURL, let reason) = error else { return false }
            return failedURL == url.absoluteString && reason.contains("gave up after 3 attempts")
        }
        #expect(try await library.models().isEmpty)
        let log = try server.log()
        #expect(log.count == 3 && log[0].range == nil && log[1].range != nil)
    }

    @Test("not enough disk space is reported before anything is fetched")
    func diskFull() async throws {
        let library = LibraryFixtures.library(in: folder.url, freeSpace: { _ in 100 << 20 })
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/files/gemma.gguf")], sha256: LibraryFixtures.gemmaSHA256,
                                               bytes: 253_113_024)
        await #expect {
            try await library.download(request).value
        } throws: { error in
            guard case ModelLibrary.Error.insufficientDiskSpace(_, let needed, let available) = error else { return false }
            return needed > 253_113_024 && available == 100 << 20
        }
        #expect(try server.log().isEmpty)
        await #expect(throws: ModelLibrary.Error.self) {
            try await library.importModel(at: TestModel.url())
        }
        #expect(try await library.models().isEmpty)
    }

    @Test("cancelling keeps the bytes so far, and the next download resumes from them")
    func cancelThenResume() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let sha256 = try tinySHA256
        // The server pauses after 2 MiB, so that the cancel below comes mid-transfer however late
        // the progress arrives on a loaded machine.
        let url = server.url("/hold/2097152/tiny.gguf")
        let download = library.download(try ModelLibrary.DownloadRequest(urls: [url], sha256: sha256))
        for await progress in download.progress where progress.bytes >= 1 << 20 {
            download.cancel()
            break
        }
        await #expect(throws: CancellationError.self) { try await download.value }
        #expect(try await library.models().isEmpty)
        let partial = PartialDownloadFiles(folder: library.root.appending(path: ".downloads"), url: url).partial
        let kept = ModelLibrary.size(of: partial)
        #expect(kept >= 1 << 20)

        try server.control("/control/release")
        let record = try await library.download(try ModelLibrary.DownloadRequest(urls: [url], sha256: sha256)).value
        #expect(record.sha256 == sha256)
        let last = try #require(try server.log().last)
        #expect(last.range == "bytes=\(kept)-" && last.ifRange != nil && last.status == 206)
    }

    @Test("concurrent requests for the same model share one transfer")
    func sharedTransfer() async throws {
        let library = LibraryFixtures.library(in: folder.url)
        let request = try ModelLibrary.DownloadRequest(urls: [server.url("/slow/tiny.gguf")], sha256: tinySHA256)
        let first = library.download(request), second = library.download(request)
        async let a = first.value
        async let b = second.value
        let (recordA, recordB) = try await (a, b)
        #expect(recordA == recordB)
        #expect(try server.log().count == 1)
        #expect(try await library.models().count == 1)
    }
}
