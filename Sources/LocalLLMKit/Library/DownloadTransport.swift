import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one HTTP transfer of a download ended.
public struct TransferResult: Sendable, Equatable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The file's whole size, when the server said (Content-Length or Content-Range).
    public var totalBytes: Int64?
    /// Whether the server honoured the Range request (206) and the bytes were appended.
    public var resumed: Bool

    /// Creates a result.
    public init(statusCode: Int, totalBytes: Int64?, resumed: Bool) {
        self.statusCode = statusCode
        self.totalBytes = totalBytes
        self.resumed = resumed
    }
}

/// A transfer that stopped part-way; the bytes written so far stay for a resume.
public struct TransferInterrupted: Error, Sendable, CustomStringConvertible {
    /// What happened.
    public var description: String

    /// Creates the error.
    public init(_ description: String) { self.description = description }
}

/// Fetches the bytes of a download into a file; replace it to fetch from elsewhere.
public protocol DownloadTransport: Sendable {
    /// GETs `url` into `file`: from byte `offset` with a Range request when `offset > 0`
    /// (appending on 206, starting over on 200), reporting the file's size as it grows
    /// and the whole size once the server has said it.
    /// An HTTP error status is returned, not thrown, and writes nothing; so is a 206 whose
    /// Content-Range does not start at `offset`, as 416.
    /// - Throws: ``TransferInterrupted`` when the connection breaks or ends early.
    func fetch(_ url: URL, resumingAt offset: Int64, into file: URL,
               progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void) async throws -> TransferResult
}

/// The default transport: Foundation's URLSession, streaming the body to the file.
public struct URLSessionTransport: DownloadTransport {
    /// How long the connection may stay silent.
    public var idleTimeout: TimeInterval

    /// Creates the transport.
    public init(idleTimeout: TimeInterval = 60) {
        self.idleTimeout = idleTimeout
    }

    /// Fetches with URLSession.
    public func fetch(_ url: URL, resumingAt offset: Int64, into file: URL,
                      progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void) async throws -> TransferResult {
        var request = URLRequest(url: url)
        if offset > 0 { request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        request.setValue("LocalLLMKit", forHTTPHeaderField: "User-Agent")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let writer = try TransferWriter(file: file, offset: offset, progress: progress)
        let session = URLSession(configuration: configuration, delegate: writer, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                writer.start(task, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Writes one URLSession data task's body to a file for ``URLSessionTransport``.
private final class TransferWriter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let handle: FileHandle
    private let offset: Int64
    private let file: URL
    private let progress: @Sendable (Int64, Int64?) -> Void
    private var written: Int64 = 0
    private var pending = Data()
    private var writeError: (any Error)?
    private var task: URLSessionDataTask?
    private var expected: Int64?
    private var result: TransferResult?
    private var continuation: CheckedContinuation<TransferResult, any Error>?

    init(file: URL, offset: Int64, progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void) throws {
        if !FileManager.default.fileExists(atPath: file.path) {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        handle = try FileHandle(forWritingTo: file)
        self.offset = offset
        self.file = file
        self.progress = progress
    }

    deinit {
        try? handle.close()
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<TransferResult, any Error>) {
        lock.withLock {
            self.continuation = continuation
            self.task = task
        }
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            lock.withLock { result = TransferResult(statusCode: status, totalBytes: nil, resumed: false) }
            completionHandler(.cancel)
            return
        }
        let resumed = status == 206 && offset > 0
        let length = response.expectedContentLength > 0 ? response.expectedContentLength : nil
        var total = length
        if resumed {
            // `bytes START-END/TOTAL`: bytes that do not start where the file ends cannot be appended,
            // so report them as an unsatisfiable range (the library then starts over).
            let range = http?.value(forHTTPHeaderField: "Content-Range") ?? ""
            let start = range.split(separator: " ").last?.split(separator: "-").first.flatMap { Int64($0) }
            if start != offset {
                lock.withLock { result = TransferResult(statusCode: 416, totalBytes: nil, resumed: false) }
                completionHandler(.cancel)
                return
            }
            total = range.split(separator: "/").last.flatMap { Int64($0) } ?? length.map { $0 + offset }
        }
        lock.withLock {
            result = TransferResult(statusCode: status, totalBytes: total, resumed: resumed)
            expected = length
            do {
                if resumed {
                    try handle.seekToEnd()
                } else {
                    try handle.truncate(atOffset: 0)       // a fresh start: the server sent the whole file
                }
            } catch {
                writeError = error
            }
        }
        completionHandler(lock.withLock { writeError == nil } ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let written: (Int64, Int64?)? = lock.withLock {
            guard let result, (200..<300).contains(result.statusCode), writeError == nil else { return nil }   // an error page
            pending.append(data)
            if pending.count >= 1 << 20 { flush() }         // few large writes keep up with a fast network
            self.written += Int64(data.count)
            return ((result.resumed ? offset : 0) + self.written, result.totalBytes)
        }
        if let (size, total) = written { progress(size, total) }
    }

    /// Writes the buffered bytes (called with the lock held); a failure (a full disk) is kept
    /// and ends the transfer.
    private func flush() {
        guard !pending.isEmpty, writeError == nil else { return }
        do {
            try handle.write(contentsOf: pending)
        } catch {
            writeError = error
            task?.cancel()
        }
        pending.removeAll(keepingCapacity: true)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, outcome): (CheckedContinuation<TransferResult, any Error>?, Result<TransferResult, any Error>) = lock.withLock {
            let continuation = self.continuation
            self.continuation = nil
            self.task = nil
            flush()
            try? handle.synchronize()
            if let result, !(200..<300).contains(result.statusCode) { return (continuation, .success(result)) }
            if let writeError {
                return (continuation, .failure(LLMKitError.libraryFailure(path: file.path,
                                                                          reason: "cannot write: \(writeError.localizedDescription)")))
            }
            if let error { return (continuation, .failure(TransferInterrupted(error.localizedDescription))) }
            guard let result else { return (continuation, .failure(TransferInterrupted("no response"))) }
            if let expected, written < expected {
                return (continuation, .failure(TransferInterrupted("the connection closed after \(written) of \(expected) bytes")))
            }
            return (continuation, .success(result))
        }
        continuation?.resume(with: outcome)
    }
}
