import Foundation
import LocalLLMKit
import Testing

/// Issue #10 (hardening) for `llmkit pull`: concurrent pulls, resumes across versions,
/// leftovers, and saying what went wrong; against the download server on 127.0.0.1.
@Suite("llmkit pull hardening", .serialized)
struct PullHardeningTests {
    let library: ScratchLibrary
    let served: URL
    let server: DownloadServer

    init() throws {
        library = try ScratchLibrary()
        (served, server) = try library.downloadServer()
    }

    /// A port on 127.0.0.1 that nothing listens on.
    static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                guard bind(descriptor, socketAddress, length) == 0, getsockname(descriptor, socketAddress, &length) == 0 else {
                    throw CommandRunner.Failure(description: "cannot bind a port")
                }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("Hardening #5: two llmkit pull processes of the same URL share nothing half-written: the second waits and reuses the model",
          arguments: [false, true])
    func concurrentPulls(withSHA256: Bool) throws {
        let file = try library.tinyModel("model.gguf", title: "Shared", bytes: 4 << 20, in: served)
        let sha256 = try ScratchLibrary.sha256(of: file)
        var arguments = ["pull", server.url("/hold/1000000/model.gguf").absoluteString]
        if withSHA256 { arguments += ["--sha256", sha256] }

        // The first pull stops after 1 MB until released, the second starts meanwhile.
        let first = try BackgroundLLMKit(arguments, environment: library.environment)
        #expect(waitUntil { library.contents(of: library.downloads).contains { $0.hasSuffix(".partial") } })
        let second = try BackgroundLLMKit(arguments, environment: library.environment)
        #expect(waitUntil { second.standardError.contains("waiting") })
        try server.control("/control/release")
        let (a, b) = (first.wait(), second.wait())
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\n---\n\(b.stderr)")
        #expect(a.stdout == b.stdout && !a.stdout.isEmpty)
        #expect(b.stderr.contains("waiting for it to finish"), "\(b.stderr)")

        let entries = try library.listing()
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["bytes"] as? Int == (try Data(contentsOf: file)).count && entry["sha256"] as? String == sha256)
        #expect(try ScratchLibrary.sha256(of: URL(filePath: entry["path"] as? String ?? "")) == sha256)
        #expect(try server.log().filter { $0.path.hasPrefix("/hold/") }.count == 1)   // one transfer, not two
        #expect(library.contents(of: library.downloads).isEmpty)
    }

    @Test("Hardening #6: a pull resumed after the file changed on the server gets the new version whole (ETag and Last-Modified)",
          arguments: ["files", "lastmod"])
    func resumeAfterChange(route: String) throws {
        let file = try library.tinyModel("model.gguf", title: "Version 1", bytes: 4 << 20, in: served)
        let url = server.url("/\(route)/model.gguf").absoluteString
        try server.control("/control/drop/1000000")          // every response breaks after 1 MB
        let interrupted = try library.llmkit(["pull", url])
        #expect(interrupted.status == 1 && interrupted.stderr.contains("gave up after 3 attempts"), "\(interrupted.stderr)")
        #expect(interrupted.stderr.contains("kept 2.9 MiB") && interrupted.stderr.contains("llmkit pull --clean"), "\(interrupted.stderr)")
        let validator = try #require(try server.log().last?.ifRange)

        // A new version, larger, with another ETag and another date.
        try library.tinyModel("model.gguf", title: "Version 2", bytes: 5 << 20, in: served)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: file.path)
        try server.control("/control/drop/0")
        let resumed = try library.llmkit(["pull", url])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let log = try server.log()
        #expect(log.map(\.range) == ["bytes=3000000-"] && log.map(\.ifRange) == [validator] && log.map(\.status) == [200])
        let entry = try #require(try library.listing().first)
        #expect(entry["sha256"] as? String == (try ScratchLibrary.sha256(of: file)) && entry["name"] as? String == "Version 2")
        #expect(entry["bytes"] as? Int == (try Data(contentsOf: file)).count)
        #expect(library.contents(of: library.downloads).isEmpty)
    }

    @Test("Hardening #8: a failed write (a full disk) keeps a resumable partial that pull --clean removes; failed attempts leave no empty partials")
    func leftovers() throws {
        try library.tinyModel("model.gguf", title: "Big", bytes: 4 << 20, in: served)
        let url = server.url("/files/model.gguf").absoluteString
        // The file size limit makes writes fail past 2 MiB, as a full disk would (EFBIG instead of ENOSPC).
        let bash = URL(filePath: "/bin/bash")
        let limited = try CommandRunner.run(bash, ["-c", "trap '' XFSZ; ulimit -f 2048; exec \"$0\" pull \"$1\"",
                                                   try CommandRunner.llmkit().path, url], environment: library.environment)
        #expect(limited.status == 1 && limited.stderr.contains("cannot write the download: File too large"), "\(limited.stderr)")
        #expect(limited.stderr.contains("kept 2.0 MiB") && limited.stderr.contains("llmkit pull --clean"), "\(limited.stderr)")
        #expect(library.contents(of: library.downloads).filter { $0.hasSuffix(".partial") }.count == 1)

        for failing in ["/missing/model.gguf", "/garbage/5000"] {
            let failed = try library.llmkit(["pull", server.url(failing).absoluteString])
            #expect(failed.status == 1)
        }
        let refused = try library.llmkit(["pull", "http://127.0.0.1:\(try Self.closedPort())/model.gguf"])
        #expect(refused.status == 1)
        #expect(library.contents(of: library.downloads).filter { $0.hasSuffix(".partial") }.count == 1)   // only the resumable one

        // Other leftovers: an unfinished import, an interrupted delete, a partial of an older version.
        let staging = library.root.appending(path: ".staging/crashed")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Data(count: 1000).write(to: staging.appending(path: "half.gguf"))
        try FileManager.default.createDirectory(at: library.root.appending(path: ".trash-1"), withIntermediateDirectories: true)
        try Data(count: 10).write(to: library.downloads.appending(path: String(repeating: "a", count: 64) + ".partial"))
        let clean = try library.llmkit(["pull", "--clean"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.contains(".partial") && clean.stdout.contains("crashed") && clean.stdout.contains(".trash-1"))
        #expect(clean.stderr.contains("removed 5 leftovers"), "\(clean.stderr)")
        #expect(library.contents(of: library.downloads).isEmpty && library.contents(of: library.root.appending(path: ".staging")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: library.root.appending(path: ".trash-1").path))

        let pulled = try library.llmkit(["pull", url])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try library.listing().count == 1)
        let again = try library.llmkit(["pull", "--clean", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((report["removed"] as? [String])?.isEmpty == true && report["freed_bytes"] as? Int == 0)
        #expect(try library.listing().count == 1)
        let usage = try library.llmkit(["pull", "--clean", url])
        #expect(usage.status == 2 && usage.stderr.contains("--clean takes no REF"))
    }

    @Test("Hardening #16b: pull names the real cause: DNS failure, refused connection, TLS, HTTP status; without pointless retries",
          arguments: [
              ("http://nonexistent.invalid/x.gguf", "the host nonexistent.invalid could not be resolved (DNS lookup failed)"),
              ("http://127.0.0.1:PORT/x.gguf", "could not connect to 127.0.0.1 port PORT: connection refused"),
              ("https://127.0.0.1:SERVER/files/x.gguf", "the TLS connection to 127.0.0.1 failed"),
              ("http://127.0.0.1:SERVER/missing/x.gguf", "HTTP 404 (not found)"),
              ("http://127.0.0.1:SERVER/auth/files/x.gguf", "HTTP 401 (unauthorized)"),       // with WWW-Authenticate
          ])
    func causes(reference: String, cause: String) throws {
        let port = String(try Self.closedPort())
        let fill = { (text: String) in
            text.replacingOccurrences(of: "SERVER", with: String(server.port)).replacingOccurrences(of: "PORT", with: port)
        }
        let output = try library.llmkit(["pull", fill(reference)])
        #expect(output.status == 1)
        #expect(output.stderr.contains(fill(reference)) && output.stderr.contains(fill(cause)), "\(output.stderr)")
        #expect(!output.stderr.contains("interrupted") && !output.stderr.contains("gave up"), "\(output.stderr)")
        #expect(try server.log().count <= 1)
        #expect(library.contents(of: library.downloads).isEmpty)
    }

    @Test("Hardening #16b: passing HTTP errors are retried after a growing pause; lasting ones give up naming the status")
    func retries() throws {
        try library.tinyModel("model.gguf", title: "Flaky", in: served)
        let recovered = try library.llmkit(["pull", server.url("/status/503/2/model.gguf").absoluteString])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let log = try server.log()
        #expect(log.map(\.status) == [503, 503, 200])
        let times = log.compactMap(\.time)
        if times.count == 3 {
            #expect(times[1] - times[0] >= 0.5 && times[2] - times[1] >= 1.0)   // pauses of 0.5 s, then 1 s (lower bounds)
        }

        let failed = try library.llmkit(["pull", server.url("/status/503/9/model.gguf").absoluteString])
        #expect(failed.status == 1 && failed.stderr.contains("HTTP 503 (service unavailable) (gave up after 3 attempts)"),
                "\(failed.stderr)")
        #expect(try server.log().count == 3)

        let mirrors = try library.llmkit(["pull", "http://nonexistent.invalid/model.gguf", "--mirror",
                                          server.url("/missing/model.gguf").absoluteString])
        #expect(mirrors.status == 1 && mirrors.stderr.contains("every mirror failed"))
        #expect(mirrors.stderr.contains("DNS lookup failed") && mirrors.stderr.contains("HTTP 404 (not found)"), "\(mirrors.stderr)")
    }
}
