import Foundation
import LocalLLMKitEngine

/// Which `Host` header values a server answers to: loopback names, any IP address, the name it
/// binds, and the names it was given (``ModelServer/Configuration/allowedHosts``).
///
/// A web page can rebind its own domain name to 127.0.0.1 and then call a server there as if it
/// were its own origin (DNS rebinding): its requests still carry its domain in `Host`, which is
/// how they are told apart. An IP address in `Host` cannot be rebound, so every one is accepted.
struct HostPolicy: Sendable {
    private let names: Set<String>

    init(_ configuration: ModelServer.Configuration) {
        var names = Set(configuration.allowedHosts.map { Self.normalized($0) })
        if !HostAddress.isLiteral(configuration.host) { names.insert(Self.normalized(configuration.host)) }
        self.names = names
    }

    /// Whether a request whose `Host` header is `header` may be answered.
    func allows(_ header: String) -> Bool {
        let host = Self.normalized(Self.withoutPort(header))
        return HostAddress.isLiteral(host) || HostAddress.isLoopback(host) || names.contains(host)
    }

    /// `example.com:8080` → `example.com`, `[::1]:8080` → `[::1]`.
    private static func withoutPort(_ header: String) -> String {
        let header = header.trimmingCharacters(in: .whitespaces)
        if header.hasPrefix("["), let close = header.firstIndex(of: "]") { return String(header[...close]) }
        guard let colon = header.lastIndex(of: ":"), header.firstIndex(of: ":") == colon else { return header }
        return String(header[..<colon])
    }

    /// Lower case, without a final dot (`Example.COM.` names `example.com`).
    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }
}
