import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a host name or address says about where it is reached from: one answer for every part
/// of the package that binds a port or checks a `Host` header.
package enum HostAddress {
    /// Whether `host` names this machine only: `localhost` (and names under `.localhost`),
    /// 127.0.0.0/8, `::1`, or an IPv4-mapped loopback address; brackets around IPv6 are allowed.
    package static func isLoopback(_ host: String) -> Bool {
        let name = unbracketed(host).lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
        return mapped && bytes[12] == 127
    }

    /// Whether `host` is an IP address written out (IPv4, or IPv6 with or without brackets),
    /// rather than a name that DNS resolves.
    package static func isLiteral(_ host: String) -> Bool {
        let name = unbracketed(host)
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    /// Whether `host` binds every interface of this machine (`0.0.0.0`, `::`).
    package static func isWildcard(_ host: String) -> Bool {
        let name = unbracketed(host)
        return name == "0.0.0.0" || name == "::" || name == "0:0:0:0:0:0:0:0"
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
