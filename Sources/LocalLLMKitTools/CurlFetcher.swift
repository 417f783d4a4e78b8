import Foundation

/// The default fetcher: libcurl, one GET per hop, with redirects followed here rather than
/// by libcurl so that each target is checked first.
///
/// Private networks stay private even against DNS rebinding: the address of every
/// connection is checked just before its socket is made, so the address checked is the
/// address connected to, whatever the name resolved to before. One deadline bounds the
/// whole fetch: name lookups, connections, TLS, headers, body and every redirect. TLS
/// certificates are verified. Proxies (even from the environment) are not used: a proxy
/// would connect on its own, past the address check.
package struct CurlFetcher: WebPageTool.Fetcher {
    /// The most redirects followed for one page.
    public var maximumRedirects: Int

    /// Creates the fetcher.
    /// - Parameter maximumRedirects: the most redirects followed for one page.
    public init(maximumRedirects: Int = 10) {
        self.maximumRedirects = maximumRedirects
    }

    /// Fetches `url` with libcurl.
    /// - Throws: ``WebPageTool/FetchError``: `.refused` for a refused redirect or address,
    ///   `.timedOut` past `timeout`, `.failed` otherwise.
    public func fetch(_ url: URL, timeout: Duration, maximumBytes: Int, allowsPrivateNetworks: Bool,
                      allowsRedirect: @escaping @Sendable (URL) -> String?) async throws -> WebPageTool.FetchedPage {
        let deadline = Deadline.after(timeout)
        let transfer = try CurlTransfer()
        let maximumRedirects = self.maximumRedirects
        return try await Deadline.run(until: deadline, orThrow: { WebPageTool.FetchError.timedOut(url, after: timeout) }) {
            try await BlockingWork.run(onCancel: { transfer.cancel() }) {
                var current = url
                var redirects = 0
                while true {
                    let outcome = transfer.get(current, timeout: deadline - .now, maximumBytes: maximumBytes,
                                               allowsPrivateNetworks: allowsPrivateNetworks)
                    switch outcome {
                    case let .complete(status, contentType, body, isTruncated):
                        return WebPageTool.FetchedPage(url: current, statusCode: status, contentType: contentType, body: body,
                                           isTruncated: isTruncated)
                    case let .redirect(location):
                        guard redirects < maximumRedirects else {
                            throw WebPageTool.FetchError("\(url.absoluteString) redirected more than \(maximumRedirects) times")
                        }
                        // Judge the Location the server sent, resolved against the page that sent it.
                        guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                            throw WebPageTool.FetchError("\(current.absoluteString) redirected to \(location), which is not a URL")
                        }
                        if let reason = allowsRedirect(next) {
                            throw WebPageTool.FetchError("redirect to \(next.absoluteString) refused: \(reason)", kind: .refused)
                        }
                        current = next
                        redirects += 1
                    case let .refused(address):
                        throw WebPageTool.FetchError("the host \(current.host ?? "?") was on a private, local or reserved address "
                                            + "when connecting (\(NetworkPolicy.describe(address))); such addresses are not allowed",
                                            kind: .refused)
                    case .timedOut:
                        throw WebPageTool.FetchError.timedOut(url, after: timeout)
                    case .cancelled:
                        throw CancellationError()
                    case let .failed(message):
                        throw WebPageTool.FetchError("loading \(current.absoluteString) failed: \(message)")
                    }
                }
            }
        }
    }
}
