import CCurlBridge
import Foundation

/// One libcurl GET at a time, for ``CurlFetcher``: run it on one thread, cancel it from any.
final class CurlTransfer: @unchecked Sendable {
    // Sendable: `run` is called from one thread at a time and `cancel` is atomic in C.
    private let handle: OpaquePointer

    /// How one GET ended.
    enum Outcome: Equatable {
        /// A response, whole or cut at the byte limit.
        case complete(status: Int, contentType: String?, body: Data, isTruncated: Bool)
        /// A redirect to `location`, as the server wrote it.
        case redirect(location: String)
        /// Every address of the host was refused; the last is given.
        case refused(address: [UInt8])
        case timedOut
        case cancelled
        case failed(String)
    }

    init() throws {
        guard let handle = llmkit_fetch_create() else { throw WebPageTool.FetchError("out of memory") }
        self.handle = handle
    }

    deinit { llmkit_fetch_destroy(handle) }

    /// Makes the running (or next) `get` end soon with `.cancelled`.
    func cancel() { llmkit_fetch_cancel(handle) }

    /// GETs `url`, without following redirects; blocks until done.
    /// - Parameter allowsPrivateNetworks: when false, every address libcurl is about to
    ///   connect to must pass ``NetworkPolicy/isPublic(_:)``.
    func get(_ url: URL, timeout: Duration, maximumBytes: Int, allowsPrivateNetworks: Bool) -> Outcome {
        let milliseconds = (Double(timeout.components.seconds) * 1000 + Double(timeout.components.attoseconds) / 1e15).rounded(.down)
        let check: llmkit_fetch_address_check? = allowsPrivateNetworks ? nil : { address, length in
            guard let address else { return 0 }
            return NetworkPolicy.isPublic(Array(UnsafeBufferPointer(start: address, count: length))) ? 1 : 0
        }
        var response = llmkit_fetch_response()
        defer { llmkit_fetch_response_free(&response) }
        url.absoluteString.withCString { url in
            "LocalLLMKit load_webpage".withCString { agent in
                "text/html,text/plain;q=0.9,*/*;q=0.1".withCString { accept in
                    var request = llmkit_fetch_request(url: url, timeout_milliseconds: milliseconds >= Double(Int.max) ? Int.max : Int(milliseconds),
                                                       maximum_bytes: max(maximumBytes, 0), allows_address: check,
                                                       user_agent: agent, accept: accept)
                    llmkit_fetch_run(handle, &request, &response)
                }
            }
        }
        let status = Int(response.status)
        switch response.outcome {
        case LLMKIT_FETCH_COMPLETE:
            let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
            return .complete(status: status, contentType: response.content_type.map { String(cString: $0) },
                             body: body, isTruncated: response.truncated != 0)
        case LLMKIT_FETCH_REDIRECT:
            return .redirect(location: response.location.map { String(cString: $0) } ?? "")
        case LLMKIT_FETCH_REFUSED:
            let length = min(response.refused_address_length, 16)
            return .refused(address: withUnsafeBytes(of: response.refused_address) { Array($0.prefix(length)) })
        case LLMKIT_FETCH_TIMED_OUT:
            return .timedOut
        case LLMKIT_FETCH_CANCELLED:
            return .cancelled
        default:
            let message = withUnsafeBytes(of: response.error) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            return .failed(message)
        }
    }
}
