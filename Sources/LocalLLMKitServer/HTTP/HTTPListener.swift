import CHTTPServerBridge
import Foundation

/// A listening HTTP server (cpp-httplib behind the bridge's connection gate) that hands each
/// request, once it has arrived whole, to `handler` on one of its worker threads.
final class HTTPListener: @unchecked Sendable {
    /// The limits and timeouts of the HTTP layer.
    struct Limits: Sendable {
        var maximumBodyBytes: Int
        var headerTimeout: Duration
        var requestTimeout: Duration
        var ioTimeout: Duration
        var keepAliveTimeout: Duration
        var workerThreads: Int
        var maximumConnections: Int
        var maximumConnectionsPerClient: Int
    }

    /// The port it listens on.
    let port: Int
    private let server: OpaquePointer
    private let context: Unmanaged<Handler>

    private final class Handler: Sendable {
        let body: @Sendable (HTTPExchange) -> Void
        init(_ body: @escaping @Sendable (HTTPExchange) -> Void) { self.body = body }
    }

    /// Binds `host:port` (0: any free port) and starts serving.
    /// - Throws: ``ModelServer/Error/bindFailed(address:reason:)``.
    init(host: String, port: Int, limits: Limits, handler: @escaping @Sendable (HTTPExchange) -> Void) throws {
        var options = llmkit_http_default_options()
        options.port = Int32(port)
        options.max_body_bytes = limits.maximumBodyBytes
        options.header_timeout_ms = Int32(limits.headerTimeout.milliseconds)
        options.request_timeout_ms = Int32(limits.requestTimeout.milliseconds)
        options.io_timeout_ms = Int32(limits.ioTimeout.milliseconds)
        options.keep_alive_timeout_ms = Int32(limits.keepAliveTimeout.milliseconds)
        options.worker_threads = Int32(limits.workerThreads)
        options.max_open_connections = limits.maximumConnections
        options.max_connections_per_address = limits.maximumConnectionsPerClient
        let context = Unmanaged.passRetained(Handler(handler))
        var error: UnsafeMutablePointer<CChar>?
        let started = host.withCString { host -> OpaquePointer? in
            options.host = host
            return llmkit_http_server_start(&options, { context, exchange in
                guard let context, let exchange else { return }
                Unmanaged<Handler>.fromOpaque(context).takeUnretainedValue().body(HTTPExchange(exchange))
            }, context.toOpaque(), &error)
        }
        guard let started else {
            context.release()
            let reason = error.map { String(cString: $0) } ?? "unknown error"
            llmkit_http_string_free(error)
            throw ModelServer.Error.bindFailed(address: "\(host):\(port)", reason: reason)
        }
        server = started
        self.context = context
        self.port = Int(llmkit_http_server_port(started))
    }

    /// Stops accepting, waits for every exchange to be finished, and releases the server. Blocks
    /// the calling thread: call it off the threads that finish exchanges.
    func stop() {
        llmkit_http_server_stop(server)
        context.release()
    }
}

extension Duration {
    /// Whole milliseconds, clamped to what an Int32 holds.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let total = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return Int(min(max(total, 0), Double(Int32.max)))
    }
}
