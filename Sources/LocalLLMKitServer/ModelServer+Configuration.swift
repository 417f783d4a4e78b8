extension ModelServer {
    /// Where a server listens, who may call it, and its limits. Every value has a default.
    public struct Configuration: Sendable, Equatable {
        /// The address to bind: loopback by default, so that nothing off this machine can reach
        /// the server unless asked (`0.0.0.0` for every interface).
        public var host: String
        /// The port; 0 picks a free one (read it back from ``ModelServer/port``).
        public var port: Int
        /// When set, every endpoint but `/health` needs `Authorization: Bearer <key>`.
        public var apiKey: String?
        /// When set, browsers on this origin may call the server (CORS); `*` allows any.
        /// No CORS headers are sent otherwise.
        public var corsOrigin: String?
        /// Larger request bodies get 413 before they are read.
        public var maximumBodyBytes: Int
        /// The whole request (line, headers, body) must arrive within this time.
        public var requestTimeout: Duration
        /// One read or write may wait this long before the connection is dropped.
        public var ioTimeout: Duration
        /// Connections served at once (each open connection holds one worker thread).
        public var maximumConnections: Int
        /// Logs each request's method, path, status and duration to standard error (never its content).
        public var logsRequests: Bool

        /// Creates a configuration.
        public init(host: String = "127.0.0.1", port: Int = 8080, apiKey: String? = nil, corsOrigin: String? = nil,
                    maximumBodyBytes: Int = 8 << 20, requestTimeout: Duration = .seconds(15), ioTimeout: Duration = .seconds(30),
                    maximumConnections: Int = 256, logsRequests: Bool = false) {
            self.host = host
            self.port = port
            self.apiKey = apiKey
            self.corsOrigin = corsOrigin
            self.maximumBodyBytes = maximumBodyBytes
            self.requestTimeout = requestTimeout
            self.ioTimeout = ioTimeout
            self.maximumConnections = maximumConnections
            self.logsRequests = logsRequests
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``ModelServer/Error/invalidConfiguration(name:reason:)``.
        public func validate() throws {
            func check(_ ok: Bool, _ name: String, _ reason: String) throws {
                if !ok { throw ModelServer.Error.invalidConfiguration(name: name, reason: reason) }
            }
            try check(!host.isEmpty && host.utf8.count <= 255, "host", "must be an address such as 127.0.0.1")
            try check((0...65535).contains(port), "port", "\(port) is not between 0 and 65535")
            if let apiKey {
                try check(!apiKey.isEmpty && apiKey.utf8.count <= 4096, "apiKey", "must have 1 to 4096 bytes")
                try check(apiKey.allSatisfy { $0.isASCII && !$0.isWhitespace && !$0.isNewline }, "apiKey",
                          "must be printable ASCII without spaces")
            }
            if let corsOrigin {
                try check(!corsOrigin.isEmpty && !corsOrigin.contains(where: \.isNewline), "corsOrigin", "must be an origin such as https://example.com")
            }
            try check((1024...(1 << 30)).contains(maximumBodyBytes), "maximumBodyBytes", "\(maximumBodyBytes) is not between 1 KiB and 1 GiB")
            try check(requestTimeout >= .milliseconds(100), "requestTimeout", "must be at least 100 ms")
            try check(ioTimeout >= .milliseconds(100), "ioTimeout", "must be at least 100 ms")
            try check((1...4096).contains(maximumConnections), "maximumConnections", "\(maximumConnections) is not between 1 and 4096")
        }
    }
}
