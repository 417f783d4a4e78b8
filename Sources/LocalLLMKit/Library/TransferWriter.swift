import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one URLSession data task's body to a file for ``URLSessionTransport``, and keeps
/// its credential to its own origin across redirects.
final class TransferWriter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let file: URL
    private let url: URL
    private let credential: DownloadCredential?
    private let offset: Int64
    private let started: @Sendable (TransferResult) throws -> Void
    private let progress: @Sendable (Int64, Int64?) -> Void
    private var handle: FileHandle?
    private var written: Int64 = 0
    private var pending = Data()
    private var writeError: (any Error)?
    private var startError: (any Error)?
    private var task: URLSessionDataTask?
    private var expected: Int64?
    private var result: TransferResult?
    private var continuation: CheckedContinuation<TransferResult, any Error>?

    init(file: URL, url: URL, credential: DownloadCredential?, offset: Int64, started: @escaping @Sendable (TransferResult) throws -> Void,
         progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void) {
        self.file = file
        self.url = url
        self.credential = credential
        self.offset = offset
        self.started = started
        self.progress = progress
    }

    deinit {
        try? handle?.close()
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<TransferResult, any Error>) {
        lock.withLock {
            self.continuation = continuation
            self.task = task
        }
        task.resume()
    }

    /// Follows a redirect with the credential only where it belongs: Foundation copies every
    /// header of the request into the redirected one, `Authorization` included, and keeps the
    /// user name and password of the old URL for a scheme-relative `Location` (`//host/…`).
    /// A URL whose user name and password cannot be taken out is not followed.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(DownloadCredential.prepare(request, credential: credential))
    }

    /// Answers no HTTP authentication challenge, so that a 401 ends the transfer as its status
    /// (Foundation on Linux otherwise waits forever after a 401 with `WWW-Authenticate`):
    /// credentials, if any, go with the request itself. Other challenges (TLS) get the default
    /// handling.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let httpMethods = [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest, NSURLAuthenticationMethodDefault,
                           NSURLAuthenticationMethodHTMLForm, NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate]
        let isHTTP = httpMethods.contains(challenge.protectionSpace.authenticationMethod)
        completionHandler(isHTTP ? .cancelAuthenticationChallenge : .performDefaultHandling, nil)
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
            guard start == offset, LibraryFiles.size(of: file) == offset else {
                lock.withLock { result = TransferResult(statusCode: 416, totalBytes: nil, resumed: false) }
                completionHandler(.cancel)
                return
            }
            total = range.split(separator: "/").last.flatMap { Int64($0) } ?? length.map { $0 + offset }
        }
        let began = TransferResult(statusCode: status, totalBytes: total, resumed: resumed,
                                   entityTag: http?.value(forHTTPHeaderField: "ETag"),
                                   lastModified: http?.value(forHTTPHeaderField: "Last-Modified"))
        let accepted: Bool = lock.withLock {
            result = began
            expected = length
            do {
                // Opened only now, for a response worth writing: a failed attempt leaves no empty file.
                let descriptor = open(file.path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else { throw LibraryFiles.failure(file, "cannot open it") }
                let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
                self.handle = handle
                if resumed {
                    try handle.seekToEnd()
                } else {
                    try handle.truncate(atOffset: 0)       // a fresh start: the server sent the whole file
                }
            } catch {
                writeError = error
                return false
            }
            do {
                try started(began)
            } catch {
                startError = error
                return false
            }
            return true
        }
        completionHandler(accepted ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let written: (Int64, Int64?)? = lock.withLock {
            guard let result, (200..<300).contains(result.statusCode), writeError == nil, startError == nil,
                  handle != nil else { return nil }
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
        guard !pending.isEmpty, writeError == nil, let handle else { return }
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
            if let handle {
                do {
                    try handle.synchronize()
                } catch {
                    if writeError == nil { writeError = error }
                }
            }
            if let result, !(200..<300).contains(result.statusCode) { return (continuation, .success(result)) }
            if let startError { return (continuation, .failure(startError)) }
            if let writeError {
                return (continuation, .failure(ModelLibrary.Error.storageFailed(path: file.path,
                                                                          reason: "cannot write the download: \(LibraryFiles.describe(writeError))")))
            }
            if let error { return (continuation, .failure(TransferFailure.interruption(error, url: url))) }
            guard let result else { return (continuation, .failure(TransferInterrupted("the server sent no response"))) }
            if let expected, written < expected {
                return (continuation, .failure(TransferInterrupted("the connection closed after \(written) of \(expected) bytes")))
            }
            return (continuation, .success(result))
        }
        continuation?.resume(with: outcome)
    }
}
