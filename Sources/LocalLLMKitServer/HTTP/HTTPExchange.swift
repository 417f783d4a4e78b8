import CHTTPServerBridge
import Foundation
import Synchronization

/// One HTTP request and its answer: the request as Swift values, and the calls that answer it
/// (whole, or as a stream of chunks). Safe to use from any thread; every answer ends with
/// ``finish()``, exactly once (later calls do nothing).
final class HTTPExchange: Sendable {
    /// The method, upper case.
    let method: String
    /// The path, without the query.
    let path: String
    /// The body.
    let body: Data
    /// The headers the server reads, by lower-case name.
    let headers: [String: String]
    /// The client's address.
    let remoteAddress: String

    // The bridge handle and the close box are only touched under the lock.
    private struct State: @unchecked Sendable {
        var handle: OpaquePointer?
        var began = false
        var closeHandler: Unmanaged<CloseHandler>?
    }
    private let state: Mutex<State>

    /// The close handler, kept alive until the bridge can no longer call it (after finish).
    private final class CloseHandler: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// The headers copied out of each request.
    static let readHeaders = ["authorization", "content-type", "host", "origin", "access-control-request-method",
                              "access-control-request-headers"]

    init(_ handle: OpaquePointer) {
        method = String(cString: llmkit_http_request_method(handle))
        path = String(cString: llmkit_http_request_path(handle))
        var length = 0
        let bytes = llmkit_http_request_body(handle, &length)
        body = bytes.map { Data(bytes: $0, count: length) } ?? Data()
        var headers: [String: String] = [:]
        for name in Self.readHeaders {
            if let value = llmkit_http_request_header(handle, name) { headers[name] = String(cString: value) }
        }
        self.headers = headers
        remoteAddress = String(cString: llmkit_http_request_remote_address(handle))
        state = Mutex(State(handle: handle))
    }

    deinit {
        // An exchange dropped without an answer still gives the connection back.
        finish()
    }

    /// Calls `handler` once if the client goes away before the answer is finished (at once when it
    /// already has). It must not call ``finish()`` itself.
    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let registered: Bool = state.withLock { state in
            guard let handle = state.handle, state.closeHandler == nil else { return true }
            let box = Unmanaged.passRetained(CloseHandler(handler))
            guard llmkit_http_set_close_handler(handle, { context in
                guard let context else { return }
                Unmanaged<CloseHandler>.fromOpaque(context).takeUnretainedValue().body()
            }, box.toOpaque()) else {
                box.release()
                return false
            }
            state.closeHandler = box
            return true
        }
        if !registered { handler() }
    }

    /// Starts the answer. `streaming` sends each ``write(_:)`` as it comes.
    func begin(status: Int, contentType: String, headers: [(String, String)] = [], streaming: Bool = false) {
        state.withLock { state in
            guard let handle = state.handle, !state.began else { return }
            state.began = true
            let names = headers.map { strdup($0.0)! }
            let values = headers.map { strdup($0.1)! }
            defer { (names + values).forEach { free($0) } }
            let nameArray: [UnsafePointer<CChar>?] = names.map { UnsafePointer($0) }
            let valueArray: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) }
            nameArray.withUnsafeBufferPointer { namePointers in
                valueArray.withUnsafeBufferPointer { valuePointers in
                    llmkit_http_begin(handle, Int32(status), contentType, namePointers.baseAddress, valuePointers.baseAddress,
                                      headers.count, streaming)
                }
            }
        }
    }

    /// Adds bytes to the answer. Returns false once the client has gone.
    @discardableResult
    func write(_ text: String) -> Bool {
        state.withLock { state in
            guard let handle = state.handle else { return false }
            var text = text
            return text.withUTF8 { llmkit_http_write(handle, $0.baseAddress, $0.count) }
        }
    }

    /// Ends the answer and gives the connection back.
    func finish() {
        let (handle, closeHandler) = state.withLock { state in
            defer { state.handle = nil; state.closeHandler = nil }
            return (state.handle, state.closeHandler)
        }
        if let handle { llmkit_http_finish(handle) }
        closeHandler?.release()
    }

    /// Answers with a whole body.
    func respond(status: Int, contentType: String = "application/json", headers: [(String, String)] = [], body: String) {
        begin(status: status, contentType: contentType, headers: headers)
        write(body)
        finish()
    }
}
