import Foundation
import Testing

/// DNS rebinding against the real load_webpage (run by `webpage-probe`), in a network
/// namespace where a DNS server answers a public address to the first lookup of a name and
/// 127.0.0.1 to the next, with TTL 0. A server on 127.0.0.1 stands for the user's network.
@Suite("load_webpage against DNS rebinding, in a network namespace", .serialized, .timeLimit(.minutes(5)),
       .enabled(if: RebindingLab.isAvailable, "needs root, unshare, ip and mount for a network namespace"))
struct WebPageRebindingTests {
    @Test("Hardening #2: a name that rebinds to 127.0.0.1 after the check is never connected to")
    func directRebinding() async throws {
        let report = try await RebindingLab.run("http://rebind.test/secret")
        #expect(report.probe["kind"] == "refused", "\(report.probe) \(report.probeStderr)")
        #expect(report.probe["error"]?.contains("127.0.0.1") == true, "\(report.probe)")
        #expect(report.privateHits.isEmpty, "the private server was contacted: \(report.privateHits)")
        // The lab did rebind: the check got the public address, the connection 127.0.0.1.
        #expect(report.answered("rebind.test", with: "93.184.216.34"))
        #expect(report.answered("rebind.test", with: "127.0.0.1"), "\(report.dns.map(\.answers))")
    }

    @Test("Hardening #2: a redirect to a rebinding name is refused when connecting")
    func redirectToRebinding() async throws {
        let report = try await RebindingLab.run("http://public.test/to-rebind")
        #expect(report.publicHits == ["/to-rebind"])
        #expect(report.probe["kind"] == "refused", "\(report.probe) \(report.probeStderr)")
        #expect(report.probe["error"]?.contains("127.0.0.1") == true, "\(report.probe)")
        #expect(report.privateHits.isEmpty, "the private server was contacted: \(report.privateHits)")
        #expect(report.answered("rebind.test", with: "127.0.0.1"), "\(report.dns.map(\.answers))")
    }

    @Test("Hardening #2: rebinding to the IPv4-mapped IPv6 form of 127.0.0.1 is refused",
          arguments: ["http://rebind6.test/secret", "http://public.test/to-rebind6"])
    func mappedRebinding(url: String) async throws {
        let report = try await RebindingLab.run(url)
        #expect(report.probe["kind"] == "refused", "\(report.probe) \(report.probeStderr)")
        #expect(report.probe["error"]?.contains("ffff") == true, "\(report.probe)")
        #expect(report.privateHits.isEmpty, "the private server was contacted: \(report.privateHits)")
        #expect(report.answered("rebind6.test", with: "::ffff:127.0.0.1"), "\(report.dns.map(\.answers))")
    }

    @Test("Hardening #2: redirects to loopback, plain or IPv4-mapped, are refused",
          arguments: ["http://public.test/to-loopback", "http://public.test/to-mapped"])
    func redirectToLoopback(url: String) async throws {
        let report = try await RebindingLab.run(url)
        #expect(report.probe["kind"] == "refused", "\(report.probe) \(report.probeStderr)")
        #expect(report.probe["error"]?.contains("not allowed") == true, "\(report.probe)")
        #expect(report.privateHits.isEmpty, "the private server was contacted: \(report.privateHits)")
    }

    @Test("Hardening #2: a public name that does not rebind still loads")
    func publicName() async throws {
        let report = try await RebindingLab.run("http://public.test/page")
        #expect(report.probe["title"] == "Public", "\(report.probe) \(report.probeStderr)")
        #expect(report.probe["text"]?.contains("public page") == true)
        #expect(report.privateHits.isEmpty)
    }

    @Test("Hardening #2: with the private-network opt-in, private addresses are reached",
          arguments: ["http://public.test/to-loopback", "http://public.test/to-mapped"])
    func optIn(url: String) async throws {
        let report = try await RebindingLab.run(url, ["--allow-private-networks"])
        #expect(report.probe["text"]?.contains("private secret") == true, "\(report.probe) \(report.probeStderr)")
        #expect(report.privateHits == ["/secret"])
    }

    @Test("Hardening #14: a name lookup that is never answered ends at the timeout")
    func silentResolver() async throws {
        // The lab's resolver waits 30 s for an answer that never comes.
        let report = try await RebindingLab.run("http://silent.test/", ["--timeout", "2"])
        #expect(report.probe["kind"] == "timedOut", "\(report.probe) \(report.probeStderr)")
        #expect(report.seconds < 20, "the probe ran \(report.seconds) s")
    }
}
