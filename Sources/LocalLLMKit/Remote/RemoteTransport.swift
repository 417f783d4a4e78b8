import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a ``RemoteModel``'s requests: builds them, retries what may succeed later (see
/// ``RemoteModel/Configuration``), enforces the deadline, and turns HTTP errors into
/// ``RemoteModel/Error``s.
struct RemoteTransport: Sendable {
    let model: RemoteModel

    /// The most bytes of an error response that are read.
    static let maximumErrorBytes = 64 << 10

    /// A request to `path` under the base URL: a POST of `body` (JSON) that accepts an event
    /// stream, or a GET of JSON without one.
    func request(path: String, body: Data?) -> URLRequest {
        var request = URLRequest(url: model.baseURL.appendingPathComponent(path))
        request.httpMethod = body == nil ? "GET" : "POST"
        request.httpBody = body
        if body != nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        } else {
            request.setValue("application/json", forHTTPHeaderField: "Accept")
        }
        if let apiKey = model.apiKey {
            request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        request.setValue("LocalLLMKit/\(LLMKitVersion.current)", forHTTPHeaderField: "User-Agent")
        return request
    }

    /// When a request that starts now must be over, from the configuration's deadline.
    func deadline() -> (instant: ContinuousClock.Instant, limit: Duration)? {
        model.configuration.deadline.map { (ContinuousClock.now + min($0, .seconds(10 * 365 * 86_400)), $0) }
    }

    /// Sends `request` until a 2xx response begins, retrying as configured.
    /// - Returns: the response, its head read, its body still to come.
    /// - Throws: a ``RemoteModel/Error`` for the last failure, or `CancellationError`.
    func open(_ request: URLRequest,
              deadline: (instant: ContinuousClock.Instant, limit: Duration)?) async throws -> HTTPResponseStream {
        let configuration = model.configuration
        var retry = 0
        while true {
            var response = HTTPResponseStream(RemoteHTTPExchange(request, idleTimeout: configuration.requestTimeout, deadline: deadline))
            let (failure, pause) = try await Self.failure(of: &response)
            guard let failure else { return response }
            let wait = pause ?? RetryPolicy.delay(beforeRetry: retry, base: configuration.retryDelay)
            guard retry < configuration.maximumRetries, wait <= configuration.maximumRetryDelay,
                  deadline.map({ ContinuousClock.now + wait < $0.instant }) ?? true else { throw failure }
            try await Task.sleep(for: wait)
            retry += 1
        }
    }

    /// Reads the head of `response`.
    /// - Returns: no failure for a 2xx response; else a failure that another attempt may fix,
    ///   and the pause the server asked for.
    /// - Throws: a failure that another attempt cannot fix.
    private static func failure(of response: inout HTTPResponseStream) async throws -> (RemoteModel.Error?, Duration?) {
        do {
            let head = try await response.readHead()
            if (200..<300).contains(head.status) { return (nil, nil) }
            let body = try await response.collect(upTo: maximumErrorBytes, truncating: true)
            let failure = RemoteModel.Error.response(status: head.status, body: body, retryAfter: head.retryAfter)
            guard RetryPolicy.isRetryable(status: head.status) else { throw failure }
            return (failure, head.retryAfter)
        } catch let error as RemoteHTTPExchange.Failure {
            guard error.isRetryable else { throw error.error }
            return (error.error, nil)
        }
    }

    /// Sends `request` and reads the whole response body (at most ``RemoteModel/Limits/maximumResponseBytes``).
    /// - Throws: as ``open(_:deadline:)``, and ``RemoteModel/Error/invalidResponse(reason:)`` for a body too large.
    func fetch(_ request: URLRequest) async throws -> Data {
        var response = try await open(request, deadline: deadline())
        defer { response.cancel() }
        return try await response.collect(upTo: model.configuration.limits.maximumResponseBytes, truncating: false)
    }
}

/// The reading end of an ``RemoteHTTPExchange``: its head, then its body in pieces.
struct HTTPResponseStream {
    let exchange: RemoteHTTPExchange
    private var parts: AsyncThrowingStream<RemoteHTTPExchange.Part, any Error>.AsyncIterator
    /// The head, once read.
    private(set) var head: RemoteHTTPExchange.Head?

    init(_ exchange: RemoteHTTPExchange) {
        self.exchange = exchange
        parts = exchange.parts.makeAsyncIterator()
    }

    /// Waits for the response head.
    /// - Throws: ``RemoteHTTPExchange/Failure``, or `CancellationError` when the task was cancelled.
    mutating func readHead() async throws -> RemoteHTTPExchange.Head {
        switch try await parts.next() {
        case .head(let head)?:
            self.head = head
            return head
        case .bytes?:
            throw RemoteHTTPExchange.Failure(error: .invalidResponse(reason: "the body came before the response head"), isRetryable: false)
        case nil:
            try Task.checkCancellation()
            throw RemoteHTTPExchange.Failure(error: .transport(reason: "the server closed the connection without answering"),
                                       isRetryable: true)
        }
    }

    /// The next piece of the body; nil at its end, or once the exchange or the task is cancelled.
    /// - Throws: the ``RemoteModel/Error`` that broke the response.
    mutating func next() async throws -> Data? {
        do {
            guard case .bytes(let data)? = try await parts.next() else { return nil }
            return data
        } catch let failure as RemoteHTTPExchange.Failure {
            throw failure.error
        }
    }

    /// The rest of the body: at most `limit` bytes, cut there when `truncating`, else a failure.
    /// - Throws: ``RemoteModel/Error/invalidResponse(reason:)`` past the limit, or the error that broke the response.
    mutating func collect(upTo limit: Int, truncating: Bool) async throws -> Data {
        var body = Data()
        while let data = try await next() {
            guard body.count + data.count <= limit else {
                if truncating { return body + data.prefix(limit - body.count) }
                throw RemoteModel.Error.invalidResponse(reason: "the response is larger than \(limit) bytes (limits.maximumResponseBytes)")
            }
            body += data
        }
        try Task.checkCancellation()
        return body
    }

    /// Stops reading and closes the connection.
    func cancel() {
        exchange.cancel()
    }
}
