import Foundation

extension WebPageTool {
    /// Fetches an image (or clip) that a chat request names by URL, under `load_webpage`'s rules:
    /// http and https only, public addresses only unless private networks are allowed (checked at
    /// every connection, against DNS rebinding), redirects checked hop by hop, one deadline for all,
    /// and a size limit past which the fetch fails rather than truncating.
    public struct MediaFetcher: Sendable {
        /// Whether private and local addresses may be reached (tests, a trusted intranet).
        public var allowsPrivateNetworks: Bool
        /// How long the whole fetch may take.
        public var timeout: Duration

        /// A fetcher; by default it reaches only public addresses, within 15 seconds.
        public init(allowsPrivateNetworks: Bool = false, timeout: Duration = .seconds(15)) {
            self.allowsPrivateNetworks = allowsPrivateNetworks
            self.timeout = timeout
        }

        /// The body at `url`, of at most `maximumBytes` bytes.
        /// - Throws: ``WebPageTool/FetchError`` for a refused, failed, timed-out, non-200 or too large fetch.
        public func fetch(_ url: URL, maximumBytes: Int) async throws -> Data {
            let policy = NetworkPolicy(allowsPrivateNetworks: allowsPrivateNetworks)
            if let refusal = try await BlockingWork.run({ policy.refusal(for: url) }) {
                throw WebPageTool.FetchError(refusal, kind: .refused)
            }
            let page = try await CurlFetcher().fetch(url, timeout: timeout, maximumBytes: maximumBytes,
                                                     allowsPrivateNetworks: allowsPrivateNetworks) { policy.refusal(for: $0) }
            guard page.statusCode == 200 else {
                throw WebPageTool.FetchError("the server answered HTTP \(page.statusCode) for \(page.url.absoluteString)")
            }
            guard !page.isTruncated else {
                throw WebPageTool.FetchError("\(page.url.absoluteString) holds more than \(maximumBytes) bytes")
            }
            return page.body
        }
    }
}
