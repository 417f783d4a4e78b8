import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request through URLSession, with a delegate (the route that works on Linux too:
/// FoundationNetworking has no `bytes(for:)`): the response head, then the body as it arrives.
///
/// Cancelling it (or the task that reads ``parts``) cancels the URLSession task, which closes
/// the connection: a server then stops generating. A silent server fails after the idle
/// timeout, and the whole exchange at its deadline.
final class RemoteHTTPExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The response head: what a retry decision needs.
    struct Head: Sendable, Equatable {
        var status: Int
        var contentType: String?
        var retryAfter: Duration?
    }

    /// The head first, then the body's bytes.
    enum Part: Sendable {
        case head(Head)
        case bytes(Data)
    }

    /// A failure before or during the response, and whether another attempt may help.
    struct Failure: Error {
        var error: RemoteModel.Error
        var isRetryable: Bool
    }

    /// The head, then the body; it ends with the response, or throws a ``Failure``.
    let parts: AsyncThrowingStream<Part, any Error>
    private let continuation: AsyncThrowingStream<Part, any Error>.Continuation
    private let url: URL
    private let idleTimeout: Duration
    private let lock = NSLock()
    private var session: URLSession?
    private var task: URLSessionDataTask?
    private var timer: Task<Void, Never>?
    private var isOver = false

    /// Starts the request.
    /// - Parameters:
    ///   - idleTimeout: how long the server may stay silent.
    ///   - deadline: when the exchange fails, whatever its state, with `timedOut(after: limit)`.
    init(_ request: URLRequest, idleTimeout: Duration, deadline: (instant: ContinuousClock.Instant, limit: Duration)?) {
        (parts, continuation) = AsyncThrowingStream.makeStream()
        url = request.url ?? URL(fileURLWithPath: "/")
        self.idleTimeout = idleTimeout
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout.seconds
        configuration.timeoutIntervalForResource = 10 * 365 * 86_400
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // The session keeps its delegate (this exchange) until it is invalidated at the end.
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        let task = session.dataTask(with: request)
        lock.withLock {
            self.session = session
            self.task = task
            if let deadline {
                timer = Task { [weak self] in
                    try? await Task.sleep(until: deadline.instant, clock: .continuous)
                    guard !Task.isCancelled else { return }
                    self?.end(.failure(Failure(error: .timedOut(after: deadline.limit), isRetryable: false)))
                }
            }
        }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel() }
        }
        task.resume()
    }

    /// Stops the exchange and closes its connection; the stream ends.
    func cancel() {
        end(.success(()))
    }

    /// Ends the stream once, with `outcome`, and lets the session go.
    private func end(_ outcome: Result<Void, Failure>) {
        let (task, session, timer): (URLSessionDataTask?, URLSession?, Task<Void, Never>?) = lock.withLock {
            guard !isOver else { return (nil, nil, nil) }
            isOver = true
            defer { (self.task, self.session, self.timer) = (nil, nil, nil) }
            return (self.task, self.session, self.timer)
        }
        guard let session else { return }
        switch outcome {
        case .success: continuation.finish()
        case .failure(let failure): continuation.finish(throwing: failure)
        }
        timer?.cancel()
        task?.cancel()
        session.invalidateAndCancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let head = Head(status: http?.statusCode ?? 0, contentType: http?.value(forHTTPHeaderField: "Content-Type"),
                        retryAfter: RetryPolicy.retryAfter(seconds: http?.value(forHTTPHeaderField: "Retry-After"),
                                                           milliseconds: http?.value(forHTTPHeaderField: "retry-after-ms")))
        continuation.yield(.head(head))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.bytes(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error else {
            end(.success(()))
            return
        }
        let code = (error as? URLError)?.code ?? URLError.Code(rawValue: (error as NSError).code)
        switch code {
        case .cancelled:
            end(.success(()))
        case .timedOut:
            end(.failure(Failure(error: .timedOut(after: idleTimeout), isRetryable: false)))
        default:
            let reason = TransferFailure.interruption(error, url: url).description
            end(.failure(Failure(error: .transport(reason: reason), isRetryable: code.map(RetryPolicy.isRetryable) ?? false)))
        }
    }
}
