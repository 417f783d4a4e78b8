import CLlama

extension LocalModel.Configuration {
    /// The most servers in ``rpcServers`` (ggml-rpc's `GGML_RPC_MAX_SERVERS`).
    public static let maximumRPCServers = 16

    /// Checks ``rpcServers`` and ``tensorSplit``.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
    func validateDevices() throws {
        func fail(_ name: String, _ reason: String) -> LocalModel.Error { .invalidOption(name: name, reason: reason) }
        if weights.rpcServers.count > Self.maximumRPCServers {
            throw fail("rpcServers", "\(weights.rpcServers.count) servers; ggml-rpc takes at most \(Self.maximumRPCServers)")
        }
        for endpoint in weights.rpcServers {
            if let problem = Self.endpointProblem(endpoint) { throw fail("rpcServers", problem) }
        }
        if let repeated = Dictionary(grouping: weights.rpcServers, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw fail("rpcServers", "'\(repeated)' is given twice")
        }
        if !weights.rpcServers.isEmpty, memoryFit != nil {
            throw fail("memoryFit", "fitting does not plan remote devices yet: give contextLength and gpuLayers with rpcServers")
        }
        if let tensorSplit = weights.tensorSplit {
            let limit = Int(llama_max_devices())
            guard (1...limit).contains(tensorSplit.count) else {
                throw fail("tensorSplit", "\(tensorSplit.count) shares; give between 1 and \(limit)")
            }
            if let bad = tensorSplit.first(where: { !$0.isFinite || $0 < 0 }) {
                throw fail("tensorSplit", "\(bad) is not a share (a finite number, 0 or more)")
            }
            guard tensorSplit.reduce(0, +) > 0 else { throw fail("tensorSplit", "the shares add up to 0") }
        }
    }

    /// What is wrong with `endpoint` as `host:port`; nil when nothing is.
    static func endpointProblem(_ endpoint: String) -> String? {
        guard let colon = endpoint.lastIndex(of: ":"), colon != endpoint.startIndex else {
            return "'\(endpoint)' is not host:port"
        }
        let host = endpoint[..<colon], port = endpoint[endpoint.index(after: colon)...]
        guard let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isASCII) else {
            return "'\(endpoint)' has no port between 1 and 65535"
        }
        guard !host.isEmpty, host.count <= 253, !host.contains(where: \.isWhitespace) else {
            return "'\(endpoint)' has no host"
        }
        return nil
    }

    /// Calls `body` with llama.cpp's model parameters for this configuration, naming the devices
    /// when there are remote ones (theirs first, as llama.cpp orders them, then this machine's
    /// GPUs) and carrying ``tensorSplit``; the pointers live while `body` runs.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` for more shares than devices,
    ///   or what `body` throws.
    package func withModelParameters<T>(links: [RemoteDeviceLink],
                                        _ body: (llama_model_params) throws -> T) throws -> T {
        var parameters = modelParameters()
        var devices: [OpaquePointer?] = links.flatMap(\.devices) + Self.localAccelerators()
        if let tensorSplit = weights.tensorSplit, tensorSplit.count > max(devices.count, 1) {
            throw LocalModel.Error.invalidOption(
                name: "tensorSplit", reason: "\(tensorSplit.count) shares for \(devices.count) devices (remote ones, then GPUs)")
        }
        devices.append(nil)
        var split = (0..<Int(llama_max_devices())).map { index in Float(weights.tensorSplit.map { index < $0.count ? $0[index] : 0 } ?? 0) }
        return try devices.withUnsafeMutableBufferPointer { deviceList in
            try split.withUnsafeMutableBufferPointer { shares in
                if !links.isEmpty { parameters.devices = deviceList.baseAddress }
                if weights.tensorSplit != nil { parameters.tensor_split = UnsafePointer(shares.baseAddress) }
                return try body(parameters)
            }
        }
    }

    /// This machine's GPUs, as llama.cpp picks them by default: discrete ones, else integrated ones.
    private static func localAccelerators() -> [OpaquePointer?] {
        let all = (0..<ggml_backend_dev_count()).compactMap { ggml_backend_dev_get($0) }.filter { device in
            let registry = ggml_backend_dev_backend_reg(device).flatMap { ggml_backend_reg_name($0) }.map { String(cString: $0) }
            return registry != "RPC"
        }
        let gpus = all.filter { ggml_backend_dev_type($0) == GGML_BACKEND_DEVICE_TYPE_GPU }
        return gpus.isEmpty ? all.filter { ggml_backend_dev_type($0) == GGML_BACKEND_DEVICE_TYPE_IGPU } : gpus
    }
}
