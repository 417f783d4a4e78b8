import Foundation
import Testing
@testable import LocalLLMKitTools

/// The timeout bounds the whole fetch, against a real server on 127.0.0.1 that is slow on
/// purpose (Support/http_server.py): its answers would take 60 s or more.
@Suite("load_webpage's timeout bounds the whole fetch", .serialized, .timeLimit(.minutes(3)))
struct WebPageTimeoutTests {
    static let tool = WebPageTool(configuration: .init(timeout: .seconds(2), allowsPrivateNetworks: true))

    /// Runs `body`; returns what it threw and how long it took.
    static func failure(_ body: () async throws -> Void) async -> (WebPageTool.FetchError?, Duration) {
        let start = ContinuousClock.now
        do {
            try await body()
            return (nil, start.duration(to: .now))
        } catch {
            return (error as? WebPageTool.FetchError ?? WebPageTool.FetchError("\(error)", kind: .failed), start.duration(to: .now))
        }
    }

    @Test("Hardening #14: a slow body, slow headers or slow redirects end with the timeout error",
          arguments: ["/trickle", "/trickle-headers", "/chain/0"])
    func slowServer(path: String) async throws {
        let server = try TestServer()
        let (error, elapsed) = await Self.failure { _ = try await Self.tool.call(.init(url: server.url(path))) }
        #expect(error?.kind == .timedOut, "\(error?.description ?? "no error")")
        #expect(error?.description.contains("time limit of 2 s") == true, "\(error?.description ?? "no error")")
        // Well under the 60 s the server would take.
        #expect(elapsed < .seconds(30), "the fetch took \(elapsed)")
    }

    @Test("Hardening #14: the fetcher alone bounds a trickling body")
    func fetcherAlone() async throws {
        let server = try TestServer()
        let url = try #require(URL(string: server.url("/trickle")))
        let (error, elapsed) = await Self.failure {
            _ = try await CurlFetcher().fetch(url, timeout: .seconds(2), maximumBytes: 10_000, allowsPrivateNetworks: true) { _ in nil }
        }
        #expect(error?.kind == .timedOut, "\(error?.description ?? "no error")")
        #expect(elapsed < .seconds(30), "the fetch took \(elapsed)")
    }

    @Test("Hardening #14: extreme timeouts are errors or waits, never a crash")
    func extremeTimeouts() async throws {
        let server = try TestServer()
        let none = WebPageTool(configuration: .init(timeout: .zero, allowsPrivateNetworks: true))
        let (error, _) = await Self.failure { _ = try await none.call(.init(url: server.url("/page"))) }
        #expect(error?.kind == .timedOut, "\(error?.description ?? "no error")")
        let negative = WebPageTool(configuration: .init(timeout: .seconds(-5), allowsPrivateNetworks: true))
        let (negativeError, _) = await Self.failure { _ = try await negative.call(.init(url: server.url("/page"))) }
        #expect(negativeError?.kind == .timedOut, "\(negativeError?.description ?? "no error")")
        let huge = WebPageTool(configuration: .init(timeout: .seconds(Int64.max), allowsPrivateNetworks: true))
        #expect(try await huge.call(.init(url: server.url("/page"))).title == "Garden Notes")
    }

    @Test("Hardening #14: a fetch that ends in time is not cut short by the timeout")
    func inTime() async throws {
        let server = try TestServer()
        // Four requests of 1 s each, well inside a 30 s limit.
        let tool = WebPageTool(configuration: .init(timeout: .seconds(30), allowsPrivateNetworks: true))
        let page = try await tool.call(.init(url: server.url("/chain/57")))
        #expect(page.title == "Garden Notes")
        #expect(page.url.hasSuffix("/chain/60"))
    }
}
