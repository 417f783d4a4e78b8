import Foundation

extension WebPageTool {
    /// What a fetch returned.
    public struct FetchedPage: Sendable, Equatable {
        /// The final URL, after redirects.
        public var url: URL
        /// The HTTP status code.
        public var statusCode: Int
        /// The `Content-Type` header, if any.
        public var contentType: String?
        /// The body, at most the byte limit.
        public var body: Data
        /// Whether the body was cut at the byte limit.
        public var isTruncated: Bool

        /// Creates a fetched page.
        public init(url: URL, statusCode: Int, contentType: String?, body: Data, isTruncated: Bool) {
            self.url = url
            self.statusCode = statusCode
            self.contentType = contentType
            self.body = body
            self.isTruncated = isTruncated
        }
    }
}

extension WebPageTool {
    /// Fetches web pages for ``WebPageTool``; replace it to serve pages from elsewhere
    /// (a cache, a test double, a proxy).
    public protocol Fetcher: Sendable {
        /// Fetches `url`.
        /// - Parameters:
        ///   - timeout: the longest the whole fetch may take: name lookups, connections,
        ///     headers, body and every redirect together.
        ///   - maximumBytes: the body is cut (and marked truncated) beyond this.
        ///   - allowsPrivateNetworks: when false, the fetcher must never open a connection to
        ///     an address that is not on the public internet. Check the address each
        ///     connection is actually made to, not only the host name: a DNS server can
        ///     answer a public address to a check and a private one to the connection that
        ///     follows (DNS rebinding).
        ///   - allowsRedirect: asked before following each redirect; returns why it is refused, or nil.
        /// - Throws: ``WebPageTool/FetchError`` naming what went wrong.
        func fetch(_ url: URL, timeout: Duration, maximumBytes: Int, allowsPrivateNetworks: Bool,
                   allowsRedirect: @escaping @Sendable (URL) -> String?) async throws -> WebPageTool.FetchedPage
    }
}

extension WebPageTool {
    /// Why a fetch failed, in words the model can read.
    public struct FetchError: Error, CustomStringConvertible, Equatable {
        /// The kinds of failure a caller may want to tell apart.
        public enum Kind: String, Sendable, Equatable {
            /// The URL, a redirect or an address was refused by the network policy.
            case refused
            /// The fetch did not finish within its timeout.
            case timedOut
            /// Anything else: the server, the network, the content.
            case failed
        }

        /// What went wrong.
        public var description: String
        /// Which kind of failure this is.
        public var kind: Kind

        /// Creates an error.
        public init(_ description: String, kind: Kind = .failed) {
            self.description = description
            self.kind = kind
        }

        /// The error for a fetch of `url` that outlasted `timeout`.
        static func timedOut(_ url: URL, after timeout: Duration) -> WebPageTool.FetchError {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            return WebPageTool.FetchError("loading \(url.absoluteString) took longer than the time limit of \(seconds.formatted()) s",
                                 kind: .timedOut)
        }
    }
}
