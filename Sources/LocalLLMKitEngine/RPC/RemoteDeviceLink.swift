import CLlamaEngineBridge

/// The link to one llama.cpp RPC server (`ggml-rpc`): the devices it offers, reached through a
/// relay of the bridge that turns the server's disappearance into a loss this process can report
/// (ggml-rpc's own client would abort the process).
///
/// Links are shared per endpoint and live as long as the process; a lost link is replaced by a
/// new one at the next connection.
package final class RemoteDeviceLink: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// The endpoint, as given (`host:port`).
    package let endpoint: String

    private init(pointer: OpaquePointer, endpoint: String) {
        self.pointer = pointer
        self.endpoint = endpoint
    }

    /// How long a server may take to answer the first handshake.
    package static let connectionTimeout = 10.0

    /// Links to every endpoint, in order.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` when this llama.cpp has no RPC
    ///   backend, ``LocalModel/Error/remoteServerUnreachable(endpoint:reason:)`` for an endpoint
    ///   that does not answer as a ggml-rpc server of this protocol.
    package static func connect(to endpoints: [String]) throws -> [RemoteDeviceLink] {
        guard !endpoints.isEmpty else { return [] }
        LlamaRuntime.ensureInitialized()
        guard llmkit_rpc_supported() else {
            throw LocalModel.Error.invalidOption(
                name: "rpcServers", reason: "this llama.cpp was built without its RPC backend (GGML_RPC=ON): run scripts/bootstrap")
        }
        return try endpoints.map { endpoint in
            var error: llmkit_error?
            guard let link = llmkit_rpc_connect(endpoint, connectionTimeout, &error) else {
                throw LocalModel.Error.remoteServerUnreachable(endpoint: endpoint,
                                                               reason: Bridge.take(error) ?? "it did not answer")
            }
            return RemoteDeviceLink(pointer: link, endpoint: endpoint)
        }
    }

    /// The server's devices (`ggml_backend_dev_t`), in its order.
    package var devices: [OpaquePointer] {
        var count = 0
        guard let list = llmkit_rpc_link_devices(pointer, &count) else { return [] }
        return (0..<count).compactMap { list[$0].map(OpaquePointer.init) }
    }

    /// Why the server was lost; nil while it serves.
    package var lossReason: String? {
        var reason: llmkit_error?
        guard llmkit_rpc_link_lost(pointer, &reason) else { return nil }
        return Bridge.take(reason) ?? "the connection failed"
    }

    /// The first loss among `links`, as the error to report.
    package static func loss(among links: [RemoteDeviceLink]) -> LocalModel.Error? {
        for link in links {
            if let reason = link.lossReason { return .remoteDeviceLost(endpoint: link.endpoint, reason: reason) }
        }
        return nil
    }
}
