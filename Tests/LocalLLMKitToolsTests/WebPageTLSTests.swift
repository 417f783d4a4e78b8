import Foundation
import Testing
@testable import LocalLLMKitTools

/// TLS is verified as before: libcurl is given no way around it.
@Suite("load_webpage over HTTPS", .timeLimit(.minutes(1)))
struct WebPageTLSTests {
    @Test("Hardening #2: TLS certificates are still verified: a self-signed server is refused")
    func selfSigned() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "webpage-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = (directory.appending(path: "cert.pem"), directory.appending(path: "key.pem"))
        let (status, _) = try await ChildProcess.run(
            URL(filePath: "/usr/bin/env"),
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path],
            timeout: .seconds(60))
        try #require(status == 0, "openssl could not make a certificate")
        let server = try TestServer(tls: (certificate, key))
        let tool = WebPageTool(configuration: .init(timeout: .seconds(20), allowsPrivateNetworks: true))
        do {
            let page = try await tool.call(.init(url: "https://127.0.0.1:\(server.port)/page"))
            Issue.record("a self-signed certificate was accepted: \(page.title ?? "")")
        } catch let error as WebPageTool.FetchError {
            #expect(error.description.lowercased().contains("certificate"), "\(error)")
        }
    }
}
