import CLlamaEngineBridge
import Foundation

/// llama.cpp's RPC server (`ggml-rpc`): offers this machine's devices to models loaded on other
/// machines with ``LocalModel/Configuration/Weights/rpcServers``. `llmkit rpc-server` runs it.
///
/// ggml-rpc has no authentication and no encryption: anyone who can reach the port can use the
/// devices and read what they hold. Bind loopback (the default) unless the network is trusted.
///
/// ```swift
/// let server = RPCDeviceServer(host: "127.0.0.1", port: 50052)
/// try server.run()          // serves until the process ends
/// ```
public struct RPCDeviceServer: Sendable {
    /// The address to bind: an IPv4 address, such as 127.0.0.1 (loopback) or 0.0.0.0 (all).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// ggml's names of the devices to offer ("CPU", "CUDA0"…; see ``ComputeDevice/all``);
    /// empty: the GPUs, else the CPU.
    public var devices: [String]
    /// CPU threads for a CPU device.
    public var threads: Int
    /// A folder where ggml-rpc keeps tensors it was sent, so that a client reloading the same
    /// model sends only their hashes; nil: none.
    public var cacheDirectory: URL?

    /// Errors of ``run()``.
    public enum Error: Swift.Error, LocalizedError, Equatable {
        /// This llama.cpp was built without its RPC backend.
        case unsupported
        /// A value cannot work: `reason` names it.
        case invalidOption(name: String, reason: String)
        /// The server could not start (a taken port, an unknown device) or stopped accepting.
        case failed(reason: String)

        /// A one-line description.
        public var errorDescription: String? {
            switch self {
            case .unsupported:
                "this llama.cpp was built without its RPC backend (GGML_RPC=ON): run scripts/bootstrap"
            case .invalidOption(let name, let reason): "invalid \(name): \(reason)"
            case .failed(let reason): reason
            }
        }
    }

    /// Creates a server description; nothing runs until ``run()``.
    public init(host: String = "127.0.0.1", port: Int = 50052, devices: [String] = [],
                threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), cacheDirectory: URL? = nil) {
        self.host = host
        self.port = port
        self.devices = devices
        self.threads = threads
        self.cacheDirectory = cacheDirectory
    }

    /// Whether ``host`` reaches beyond this machine (anything but a loopback address).
    public var isExposed: Bool {
        !HostAddress.isLoopback(host)
    }

    /// Checks ``host`` and ``port`` before anything binds.
    /// - Throws: ``Error/invalidOption(name:reason:)`` naming the value.
    public func validate() throws {
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else {
            let kind = HostAddress.isLiteral(host) ? "an IPv6 address" : "not an IPv4 address"
            throw Error.invalidOption(name: "host", reason: "'\(host)' is \(kind), and ggml-rpc's server binds IPv4 only: "
                                      + "use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
        }
        guard (1...65535).contains(port) else { throw Error.invalidOption(name: "port", reason: "\(port) is not between 1 and 65535") }
    }

    /// Serves clients, one at a time, until the process ends; blocks the calling thread.
    /// - Throws: ``Error`` when it cannot start, or stops accepting.
    public func run() throws {
        LlamaRuntime.ensureInitialized()
        guard llmkit_rpc_supported() else { throw Error.unsupported }
        try validate()
        guard (1...1024).contains(threads) else {
            throw Error.invalidOption(name: "threads", reason: "\(threads) is not between 1 and 1024")
        }
        if let cacheDirectory {
            do {
                try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
            } catch {
                throw Error.invalidOption(name: "cacheDirectory", reason: "\(cacheDirectory.path): \(error.localizedDescription)")
            }
        }
        let names = devices.map { strdup($0) }
        defer { names.forEach { free($0) } }
        var pointers = names.map { UnsafePointer<CChar>($0) }
        var error: llmkit_error?
        let endpoint = "\(host):\(port)"
        _ = pointers.withUnsafeMutableBufferPointer { list in
            llmkit_rpc_serve(endpoint, list.baseAddress, list.count, threads, cacheDirectory?.path, &error)
        }
        throw Error.failed(reason: Bridge.take(error) ?? "the RPC server on \(endpoint) stopped")
    }
}
