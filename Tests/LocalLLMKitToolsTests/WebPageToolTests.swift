import Foundation
import Testing
@testable import LocalLLMKitTools

@Suite("load_webpage against a real HTTP server on 127.0.0.1", .serialized, .timeLimit(.minutes(1)))
struct WebPageToolTests {
    // The timeout bounds the whole fetch: generous, for a loaded machine.
    static let local = WebPageTool(configuration: .init(timeout: .seconds(15), maximumBytes: 100_000, allowsPrivateNetworks: true))

    static func failure(_ tool: WebPageTool, _ url: String) async -> String? {
        do {
            _ = try await tool.call(.init(url: url))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("an HTML page gives its title and readable text, without scripts or styles")
    func htmlPage() async throws {
        let server = try TestServer()
        let page = try await Self.local.call(.init(url: server.url("/page")))
        #expect(page.title == "Garden Notes")
        #expect(page.text.contains("Tomatoes"))
        #expect(page.text.contains("Plant them in full sun & water often."))
        #expect(page.text.contains("Basil grows well beside them."))
        #expect(!page.text.contains("secret") && !page.text.contains("color"))
        #expect(!page.truncated)
        let plain = try await Self.local.call(.init(url: server.url("/plain")))
        #expect(plain.text == "just text" && plain.title == nil)
    }

    @Test("a redirect is followed, but not to file://")
    func redirects() async throws {
        let server = try TestServer()
        let followed = try await Self.local.call(.init(url: server.url("/redirect-page")))
        #expect(followed.title == "Garden Notes")
        #expect(followed.url.hasSuffix("/page"))
        let refused = await Self.failure(Self.local, server.url("/redirect-file"))
        #expect(refused?.contains("file:///etc/passwd") == true, "\(refused ?? "no error")")
        #expect(refused?.contains("refused") == true)
    }

    @Test("Hardening #2: redirects are followed one hop at a time, a bounded number of times")
    func redirectLoop() async throws {
        let server = try TestServer()
        let failure = await Self.failure(Self.local, server.url("/loop"))
        #expect(failure?.contains("redirected more than 10 times") == true, "\(failure ?? "no error")")
        #expect(try server.hits() == Array(repeating: "/loop", count: 11))
    }

    @Test("a body over the cap is truncated, and so marked")
    func truncated() async throws {
        let server = try TestServer()
        let page = try await Self.local.call(.init(url: server.url("/big")))
        #expect(page.truncated)
        #expect(page.text.count <= Self.local.configuration.maximumCharacters)
        #expect(page.text.hasPrefix("word word"))
    }

    @Test("a server slower than the timeout is an error")
    func slow() async throws {
        let server = try TestServer()
        let impatient = WebPageTool(configuration: .init(timeout: .seconds(1), allowsPrivateNetworks: true))
        let failure = await Self.failure(impatient, server.url("/slow"))
        #expect(failure?.contains("time limit of 1 s") == true, "\(failure ?? "no error")")
    }

    @Test("binary content is reported, not shown")
    func binary() async throws {
        let server = try TestServer()
        let failure = await Self.failure(Self.local, server.url("/binary"))
        #expect(failure?.contains("not a text page (image/png") == true, "\(failure ?? "no error")")
    }

    @Test("only http and https")
    func schemes() async {
        #expect(await Self.failure(Self.local, "file:///etc/passwd")?.contains("only http and https") == true)
        #expect(await Self.failure(Self.local, "ftp://example.com/x")?.contains("only http and https") == true)
    }

    /// Records fetches, to prove that refused hosts are never contacted.
    final class SpyFetcher: WebPageTool.Fetcher, @unchecked Sendable {
        private let lock = NSLock()
        private var urls: [URL] = []
        var fetched: [URL] { lock.withLock { urls } }

        func fetch(_ url: URL, timeout: Duration, maximumBytes: Int, allowsPrivateNetworks: Bool,
                   allowsRedirect: @escaping @Sendable (URL) -> String?) async throws -> WebPageTool.FetchedPage {
            lock.withLock { urls.append(url) }
            return WebPageTool.FetchedPage(url: url, statusCode: 200, contentType: "text/plain", body: Data("ok".utf8), isTruncated: false)
        }
    }

    @Test("by default, local and private hosts are refused without any connection",
          arguments: ["http://127.0.0.1/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data", "http://localhost/",
                      "http://[::1]/", "http://192.168.1.1/", "http://224.0.0.1/", "http://0.0.0.0/"])
    func privateHostsRefused(url: String) async throws {
        let spy = SpyFetcher()
        let tool = WebPageTool(configuration: .init(), fetcher: spy)
        let failure = await Self.failure(tool, url)
        #expect(failure?.contains("not allowed") == true, "\(failure ?? "no error")")
        #expect(spy.fetched.isEmpty)
    }

    @Test("the real server sees no request for a refused local URL")
    func noConnection() async throws {
        let server = try TestServer()
        let strict = WebPageTool(configuration: .init(timeout: .seconds(2)))
        #expect(await Self.failure(strict, server.url("/page"))?.contains("not allowed") == true)
        #expect(try server.hits().isEmpty)
    }

    @Test("public addresses pass the policy")
    func publicAddresses() {
        #expect(NetworkPolicy.isPublic([93, 184, 216, 34]))
        #expect(NetworkPolicy.isPublic([8, 8, 8, 8]))
        #expect(!NetworkPolicy.isPublic([172, 20, 0, 1]))
        #expect(!NetworkPolicy.isPublic([100, 100, 0, 1]))
        #expect(!NetworkPolicy.isPublic([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1]))
        #expect(!NetworkPolicy.isPublic([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 1, 1]))     // NAT64 of a private address
        #expect(NetworkPolicy.isPublic([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8]))
        #expect(!NetworkPolicy.isPublic([0x20, 0x02, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))        // 6to4 of 10.0.0.1
        #expect(NetworkPolicy.isPublic([0x26, 0x06, 0x28, 0, 0x02, 0x20, 0, 1, 0x02, 0x48, 0x18, 0x93, 0x25, 0xc8, 0x19, 0x46]))
    }
}
