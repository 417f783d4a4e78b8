import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the real cause of a failed transfer (DNS, refused connection, TLS, timeout, HTTP
/// status) and decides whether another attempt can help.
enum TransferFailure {
    /// A URLSession error as a ``TransferInterrupted`` that says what happened.
    static func interruption(_ error: any Error, url: URL) -> TransferInterrupted {
        let host = url.host ?? "the server"
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let detail = (error as NSError).localizedDescription
        let code = (error as? URLError)?.code ?? URLError.Code(rawValue: (error as NSError).code)
        switch code {
        case .cannotFindHost, .dnsLookupFailed:
            return TransferInterrupted("the host \(host) could not be resolved (DNS lookup failed)", isRetryable: false)
        case .cannotConnectToHost:
            // URLSession does not say why; one direct attempt finds the system's reason.
            if let problem = connectionProblem(host: host, port: port) {
                return TransferInterrupted("could not connect to \(host) port \(port): \(problem)", isRetryable: false)
            }
            return TransferInterrupted("could not connect to \(host) port \(port) (\(detail))")
        case .timedOut:
            return TransferInterrupted("the server stopped answering (timed out)")
        case .networkConnectionLost:
            return TransferInterrupted("the connection was lost")
        case .notConnectedToInternet:
            return TransferInterrupted("there is no network connection", isRetryable: false)
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            return TransferInterrupted("too many or broken redirects (\(detail))", isRetryable: false)
        case .badURL, .unsupportedURL:
            return TransferInterrupted("the URL cannot be fetched (\(detail))", isRetryable: false)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            return TransferInterrupted("the TLS connection to \(host) failed: \(detail)", isRetryable: false)
        default:
            // libcurl's TLS errors reach Foundation on Linux as unknown errors naming OpenSSL.
            if ["SSL", "TLS", "certificate"].contains(where: { detail.localizedCaseInsensitiveContains($0) }) {
                return TransferInterrupted("the TLS connection to \(host) failed: \(detail)", isRetryable: false)
            }
            return TransferInterrupted(detail)
        }
    }

    /// `HTTP 404 (not found)`.
    static func describe(status: Int) -> String {
        "HTTP \(status) (\(HTTPURLResponse.localizedString(forStatusCode: status).lowercased()))"
    }

    /// Statuses that a later attempt may not get: timeouts, rate limits, server trouble.
    static func isRetryable(status: Int) -> Bool {
        [408, 425, 429, 500, 502, 503, 504].contains(status)
    }

    /// Why a TCP connection to `host`:`port` fails (the system's words, e.g. `Connection
    /// refused`), trying once for at most `timeout`; nil when it connects after all.
    static func connectionProblem(host: String, port: Int, timeout: Duration = .seconds(3)) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard getaddrinfo(bare, String(port), &hints, &list) == 0, let address = list else {
            return "the host does not resolve any more"
        }
        defer { freeaddrinfo(list) }
        let socketDescriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard socketDescriptor >= 0 else { return nil }
        defer { close(socketDescriptor) }
        _ = fcntl(socketDescriptor, F_SETFL, fcntl(socketDescriptor, F_GETFL) | O_NONBLOCK)
        if connect(socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return nil }
        var error = errno
        if error == EINPROGRESS {
            var poller = pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0)
            let milliseconds = Int32(timeout.components.seconds * 1000)
            guard poll(&poller, 1, milliseconds) == 1 else { return "no answer within \(timeout.components.seconds) s (timed out)" }
            var length = socklen_t(MemoryLayout<Int32>.size)
            error = 0
            getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return nil }
        }
        return String(cString: strerror(error)).lowercased()
    }
}
