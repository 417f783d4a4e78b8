import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides which hosts `load_webpage` may contact: by default only public internet
/// addresses, never loopback, private, link-local, multicast or reserved ones (a web
/// page named by a model must not reach the user's own network).
///
/// ``refusal(for:)`` resolves the name to refuse early, with a clear reason; it cannot
/// stop a DNS server that answers differently the next time (DNS rebinding). What stops
/// that is ``isPublic(_:)`` applied by the fetcher to the address of each connection,
/// just before it is made (``CurlFetcher``).
struct NetworkPolicy: Sendable {
    /// Whether private and local addresses are allowed (for tests, or a trusted intranet).
    var allowsPrivateNetworks: Bool

    /// Why `url` may not be fetched, or nil when it may. Resolves the host name (a DNS
    /// query), but never connects to it.
    func refusal(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "only http and https URLs can be loaded (got \(url.scheme ?? "no scheme"))"
        }
        guard let host = url.host, !host.isEmpty else { return "the URL has no host" }
        if allowsPrivateNetworks { return nil }
        let addresses = Self.resolve(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        guard !addresses.isEmpty else { return "the host \(host) cannot be resolved" }
        if let blocked = addresses.first(where: { !Self.isPublic($0) }) {
            return "the host \(host) is on a private, local or reserved address (\(Self.describe(blocked))); such addresses are not allowed"
        }
        return nil
    }

    /// The addresses a host name resolves to (IPv4 as 4 bytes, IPv6 as 16).
    static func resolve(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        addresses.append(withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        addresses.append(withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) })
                    }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// Whether an address is on the public internet.
    static func isPublic(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return isPublicIPv4(address) }
        guard address.count == 16 else { return false }
        if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
            return isPublicIPv4(Array(address[12...]))                          // IPv4-mapped
        }
        if address[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isPublicIPv4(Array(address[12...]))                          // 64:ff9b::/96 NAT64
        }
        if address[0] == 0x20 && address[1] == 0x02 {
            return isPublicIPv4(Array(address[2..<6]))                          // 2002::/16 6to4
        }
        if address.allSatisfy({ $0 == 0 }) { return false }                      // ::
        if address[0..<15].allSatisfy({ $0 == 0 }) && address[15] == 1 { return false }   // ::1
        if address[0] & 0xFE == 0xFC { return false }                            // fc00::/7 unique local
        if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return false }      // fe80::/10 link-local
        if address[0] == 0xFF { return false }                                   // ff00::/8 multicast
        return true
    }

    private static func isPublicIPv4(_ a: [UInt8]) -> Bool {
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): return false                             // this network, private, loopback
        case (100, 64...127): return false                                       // shared (carrier-grade NAT)
        case (169, 254): return false                                            // link-local (cloud metadata)
        case (172, 16...31), (192, 168): return false                            // private
        case (192, 0) where a[2] == 0 || a[2] == 2: return false                 // protocol assignments, documentation
        case (198, 18...19): return false                                        // benchmarking
        case (198, 51) where a[2] == 100, (203, 0) where a[2] == 113: return false  // documentation
        case (224...255, _): return false                                        // multicast, reserved, broadcast
        default: return true
        }
    }

    static func describe(_ address: [UInt8]) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        let groups: [String] = stride(from: 0, to: address.count, by: 2).map { (index: Int) -> String in
            let group: UInt16 = UInt16(address[index]) << 8 | UInt16(address[index + 1])
            return String(group, radix: 16)
        }
        return groups.joined(separator: ":")
    }
}
