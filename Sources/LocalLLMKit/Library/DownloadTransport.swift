import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one HTTP transfer of a download began (as passed to `started`) or ended.
package struct TransferResult: Sendable, Equatable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The file's whole size, when the server said (Content-Length or Content-Range).
    public var totalBytes: Int64?
    /// Whether the server honoured the Range request (206) and the bytes were appended.
    public var resumed: Bool
    /// The response's `ETag`, when it sent one: it names the version of the file.
    public var entityTag: String?
    /// The response's `Last-Modified`, when it sent one.
    public var lastModified: String?

    /// Creates a result.
    public init(statusCode: Int, totalBytes: Int64?, resumed: Bool, entityTag: String? = nil, lastModified: String? = nil) {
        self.statusCode = statusCode
        self.totalBytes = totalBytes
        self.resumed = resumed
        self.entityTag = entityTag
        self.lastModified = lastModified
    }
}

/// A transfer that failed before the file was whole; the bytes written so far stay for a resume.
package struct TransferInterrupted: Error, Sendable, CustomStringConvertible {
    /// What happened, e.g. `the host example.invalid could not be resolved (DNS lookup failed)`.
    public var description: String
    /// Whether trying again can help (a dropped connection, a timeout); false for causes that
    /// persist (a host that does not resolve, a refused connection, a TLS failure).
    public var isRetryable: Bool

    /// Creates the error.
    public init(_ description: String, isRetryable: Bool = true) {
        self.description = description
        self.isRetryable = isRetryable
    }
}

/// Fetches the bytes of a download into a file; replace it to fetch from elsewhere.
package protocol DownloadTransport: Sendable {
    /// GETs `url` into `file`, reporting the file's size as it grows and the whole size once
    /// the server has said it.
    ///
    /// - `credential`, when given, goes as HTTP Basic authentication to its own origin only:
    ///   a redirect elsewhere loses it (and any user name and password in the new URL).
    /// - With `offset > 0` it sends `Range: bytes=offset-` and, when `validator` is given,
    ///   `If-Range: validator` (an ETag or a Last-Modified date): the server then sends either
    ///   the rest of that same version (206: appended) or the whole current file (200: the
    ///   file is truncated and written from byte 0).
    /// - The file is created or changed only once a 2xx response arrives. `started` is then
    ///   called, once, after the file was truncated (200) or positioned at its end (206) and
    ///   before any byte of the body is written; an error it throws ends the transfer and is
    ///   rethrown.
    /// - An HTTP error status is returned, not thrown, and writes nothing; so is a 206 whose
    ///   Content-Range does not start at `offset`, as 416.
    /// - Throws: ``TransferInterrupted`` when the connection fails, breaks or ends early;
    ///   ``ModelLibrary/Error/storageFailed(path:reason:)`` when the file cannot be written.
    func fetch(_ url: URL, credential: DownloadCredential?, resumingAt offset: Int64, validator: String?, into file: URL,
               started: @escaping @Sendable (TransferResult) throws -> Void,
               progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void) async throws -> TransferResult
}

/// The default transport: Foundation's URLSession, streaming the body to the file.
package struct URLSessionTransport: DownloadTransport {
    /// How long the connection may stay silent.
    public var idleTimeout: TimeInterval

    /// Creates the transport.
    public init(idleTimeout: TimeInterval = 60) {
        self.idleTimeout = idleTimeout
    }

    /// Fetches with URLSession; ``TransferWriter`` applies `credential` to every redirect.
    public func fetch(_ url: URL, credential: DownloadCredential?, resumingAt offset: Int64, validator: String?, into file: URL,
                      started: @escaping @Sendable (TransferResult) throws -> Void,
                      progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void) async throws -> TransferResult {
        var request = URLRequest(url: url)
        if offset > 0 {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        }
        request.setValue("LocalLLMKit", forHTTPHeaderField: "User-Agent")
        guard let prepared = DownloadCredential.prepare(request, credential: credential) else {
            throw TransferInterrupted("the URL's user name and password cannot be taken out of it", isRetryable: false)
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let writer = TransferWriter(file: file, url: url, credential: credential, offset: offset, started: started, progress: progress)
        let session = URLSession(configuration: configuration, delegate: writer, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: prepared)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                writer.start(task, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }
}
