import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

/// Fetches web pages for ``WebPageTool``; replace it to serve pages from elsewhere
/// (a cache, a test double, a proxy).
public protocol WebPageFetcher: Sendable {
    /// Fetches `url`.
    /// - Parameters:
    ///   - timeout: the longest the whole fetch may take.
    ///   - maximumBytes: the body is cut (and marked truncated) beyond this.
    ///   - allowsRedirect: asked before following each redirect; returns why it is refused, or nil.
    func fetch(_ url: URL, timeout: Duration, maximumBytes: Int,
               allowsRedirect: @escaping @Sendable (URL) -> String?) async throws -> FetchedPage
}

/// Why a fetch failed, in words the model can read.
public struct WebFetchError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    public var description: String

    /// Creates an error.
    public init(_ description: String) { self.description = description }
}

/// The default fetcher: Foundation's URLSession, one request at a time, streaming the
/// body so that it can stop at the byte limit.
public struct URLSessionFetcher: WebPageFetcher {
    /// Creates the fetcher.
    public init() {}

    /// Fetches `url` with URLSession.
    public func fetch(_ url: URL, timeout: Duration, maximumBytes: Int,
                      allowsRedirect: @escaping @Sendable (URL) -> String?) async throws -> FetchedPage {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpAdditionalHeaders = ["User-Agent": "LocalLLMKit load_webpage", "Accept": "text/html,text/plain;q=0.9,*/*;q=0.1"]
        let delegate = FetchDelegate(url: url, limit: maximumBytes, allowsRedirect: allowsRedirect)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.start(task, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Collects one data task's response for ``URLSessionFetcher``.
private final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let url: URL
    private let limit: Int
    private let allowsRedirect: @Sendable (URL) -> String?
    private var body = Data()
    private var truncated = false
    private var refusal: String?
    private var response: HTTPURLResponse?
    private var continuation: CheckedContinuation<FetchedPage, any Error>?

    init(url: URL, limit: Int, allowsRedirect: @escaping @Sendable (URL) -> String?) {
        self.url = url
        self.limit = limit
        self.allowsRedirect = allowsRedirect
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<FetchedPage, any Error>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // Judge the Location the server sent: Foundation may resolve `file:///x` against the
        // page's own URL before it asks.
        let location = response.value(forHTTPHeaderField: "Location").flatMap { URL(string: $0, relativeTo: response.url) }
        let target = location?.absoluteURL ?? request.url
        if let reason = target.map(allowsRedirect) ?? "a redirect without a location" {
            lock.withLock { refusal = "redirect to \(target?.absoluteString ?? "?") refused: \(reason)" }
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { self.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let full = lock.withLock { () -> Bool in
            let room = limit - body.count
            if data.count > room {
                body.append(data.prefix(max(room, 0)))
                truncated = true
                return true
            }
            body.append(data)
            return false
        }
        if full { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<FetchedPage, any Error>?, Result<FetchedPage, any Error>) = lock.withLock {
            let continuation = self.continuation
            self.continuation = nil
            if let refusal { return (continuation, .failure(WebFetchError(refusal))) }
            if !truncated, let error {
                let nsError = error as NSError
                let message = nsError.code == NSURLErrorTimedOut ? "the server did not answer in time" : error.localizedDescription
                return (continuation, .failure(WebFetchError(message)))
            }
            guard let response else { return (continuation, .failure(WebFetchError("no response"))) }
            return (continuation, .success(FetchedPage(url: response.url ?? url, statusCode: response.statusCode,
                                                        contentType: response.value(forHTTPHeaderField: "Content-Type"),
                                                        body: body, isTruncated: truncated)))
        }
        continuation?.resume(with: result)
    }
}
