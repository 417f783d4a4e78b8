import Foundation
import Testing
@testable import LocalLLMKitEngine

@Suite("Model paths that are not regular files")
struct SpecialFileTests {
    /// Opens a FIFO's write end now and then, which releases a reader blocked in
    /// open(2): a regression then fails its test instead of hanging the test run.
    final class FIFOWatchdog: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false

        init(_ path: String) {
            Thread.detachNewThread { [self] in
                for _ in 0..<600 where !lock.withLock({ done }) {
                    Thread.sleep(forTimeInterval: 0.1)
                    let descriptor = open(path, O_WRONLY | O_NONBLOCK)
                    if descriptor >= 0 { close(descriptor) }
                }
            }
        }

        func stop() { lock.withLock { done = true } }
    }

    @Test("Hardening #9: a FIFO, or a link to one, is refused without being opened")
    func fifo() async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.file("pipe.gguf"), link = folder.file("link.gguf")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fifo)
        let watchdog = FIFOWatchdog(fifo.path)
        defer { watchdog.stop() }
        for url in [fifo, link] {
            let refusal = GGUFFile.Error.invalidFile(path: url.path, reason: "it is a FIFO (named pipe), not a regular file")
            #expect(throws: refusal) { try GGUFFile(contentsOf: url) }
            await #expect(throws: refusal) { _ = try await LocalModel.load(from: url) }
        }
    }

    @Test("Hardening #9: a device is refused as one", arguments: ["/dev/null", "/dev/zero", "/dev/urandom"])
    func device(path: String) async throws {
        let refusal = GGUFFile.Error.invalidFile(path: path, reason: "it is a character device, not a regular file")
        #expect(throws: refusal) { try GGUFFile(contentsOf: URL(filePath: path)) }
        await #expect(throws: refusal) { _ = try await LocalModel.load(from: URL(filePath: path)) }
    }

    @Test("Hardening #9: a socket is refused as one")
    func socketFile() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("s.gguf").path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(throws: GGUFFile.Error.invalidFile(path: path, reason: "it is a socket, not a regular file")) {
            try GGUFFile(contentsOf: URL(filePath: path))
        }
    }
}
