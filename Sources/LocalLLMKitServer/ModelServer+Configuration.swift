import LocalLLMKitEngine

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
        /// Serve on an address other machines can reach without ``apiKey``. Off by default: such a
        /// server is refused (``ModelServer/Error/invalidConfiguration(name:reason:)`` naming
        /// `apiKey`), since anyone on the network could then use its models.
        public var allowsUnauthenticatedRemoteAccess: Bool
        /// Names clients may use in the `Host` header besides this machine's loopback names and
        /// any IP address, e.g. `llm.example.com`. A request naming another host gets `403`: a web
        /// page that rebinds its own domain name to this server's address is refused that way.
        public var allowedHosts: [String]
        /// When set, browsers on this origin may call the server (CORS); `*` allows any.
        /// No CORS headers are sent otherwise.
        public var corsOrigin: String?
        /// Larger request bodies get 413 before they are read.
        public var maximumBodyBytes: Int
        /// A request's line and headers must arrive within this time of its first byte (of the
        /// connection, for its first request); never more than ``requestTimeout``.
        public var headerTimeout: Duration
        /// The whole request (line, headers, body) must arrive within this time.
        public var requestTimeout: Duration
        /// While a request is answered, one read or write may wait this long before the
        /// connection is dropped.
        public var ioTimeout: Duration
        /// Requests answered at once. A request holds a worker thread only once it has arrived
        /// whole, so clients that are slow to send never hold one.
        public var maximumConcurrentRequests: Int
        /// Open connections not being answered (a request still arriving, or idle between
        /// requests), in total. Past it, the oldest that never completed a request is closed.
        public var maximumConnections: Int
        /// The same bound for the connections of one client address.
        public var maximumConnectionsPerClient: Int
        /// Logs each request's method, path, status and duration to standard error (never its content).
        public var logsRequests: Bool
        /// Fetches the `http(s)` image URLs of chat requests (`llmkit serve --allow-image-urls`
        /// gives one with `load_webpage`'s network policy); nil (the default): such URLs are
        /// refused with a 400, and images come as `data:` URLs only.
        public var mediaFetcher: MediaFetcher?

        /// Creates a configuration.
        public init(host: String = "127.0.0.1", port: Int = 8080, apiKey: String? = nil,
                    allowsUnauthenticatedRemoteAccess: Bool = false, allowedHosts: [String] = [], corsOrigin: String? = nil,
                    maximumBodyBytes: Int = 8 << 20, headerTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(15),
                    ioTimeout: Duration = .seconds(30), maximumConcurrentRequests: Int = 256, maximumConnections: Int = 1024,
                    maximumConnectionsPerClient: Int = 256, logsRequests: Bool = false) {
            self.host = host
            self.port = port
            self.apiKey = apiKey
            self.allowsUnauthenticatedRemoteAccess = allowsUnauthenticatedRemoteAccess
            self.allowedHosts = allowedHosts
            self.corsOrigin = corsOrigin
            self.maximumBodyBytes = maximumBodyBytes
            self.headerTimeout = headerTimeout
            self.requestTimeout = requestTimeout
            self.ioTimeout = ioTimeout
            self.maximumConcurrentRequests = maximumConcurrentRequests
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerClient = maximumConnectionsPerClient
            self.logsRequests = logsRequests
        }

        /// Whether other machines can reach the server: its address is not a loopback one.
        public var isExposed: Bool { !HostAddress.isLoopback(host) }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``ModelServer/Error/invalidConfiguration(name:reason:)``.
        public func validate() throws {
            func check(_ ok: Bool, _ name: String, _ reason: String) throws {
                if !ok { throw ModelServer.Error.invalidConfiguration(name: name, reason: reason) }
            }
            try check(!host.isEmpty && host.utf8.count <= 255, "host", "must be an address such as 127.0.0.1")
            try check((0...65535).contains(port), "port", "\(port) is not between 0 and 65535")
            if let apiKey {
                try check(!apiKey.isEmpty, "apiKey", "is empty, which would turn authentication off; give a key, or none")
                try check(apiKey.utf8.count <= 4096, "apiKey", "must have 1 to 4096 bytes")
                try check(apiKey.allSatisfy { $0.isASCII && !$0.isWhitespace && !$0.isNewline && $0.asciiValue! >= 0x21 && $0.asciiValue! < 0x7f },
                          "apiKey", "must be printable ASCII without spaces")
            }
            try check(apiKey != nil || !isExposed || allowsUnauthenticatedRemoteAccess, "apiKey",
                      "\(host) can be reached from other machines, and without a key anyone there could use the models; "
                      + "set a key, bind 127.0.0.1, or allow unauthenticated remote access explicitly")
            for name in allowedHosts {
                try check(!name.isEmpty && name.utf8.count <= 253 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) },
                          "allowedHosts", "'\(name)' is not a host name such as llm.example.com")
            }
            if let corsOrigin {
                try check(!corsOrigin.isEmpty && !corsOrigin.contains(where: \.isNewline), "corsOrigin", "must be an origin such as https://example.com")
            }
            try check((1024...(1 << 30)).contains(maximumBodyBytes), "maximumBodyBytes", "\(maximumBodyBytes) is not between 1 KiB and 1 GiB")
            try check(headerTimeout >= .milliseconds(100), "headerTimeout", "must be at least 100 ms")
            try check(requestTimeout >= .milliseconds(100), "requestTimeout", "must be at least 100 ms")
            try check(requestTimeout <= .seconds(86_400), "requestTimeout", "must be at most a day")
            try check(ioTimeout <= .seconds(86_400), "ioTimeout", "must be at most a day")
            try check(ioTimeout >= .milliseconds(100), "ioTimeout", "must be at least 100 ms")
            try check((1...4096).contains(maximumConcurrentRequests), "maximumConcurrentRequests",
                      "\(maximumConcurrentRequests) is not between 1 and 4096")
            try check((1...65536).contains(maximumConnections), "maximumConnections", "\(maximumConnections) is not between 1 and 65536")
            try check((1...maximumConnections).contains(maximumConnectionsPerClient), "maximumConnectionsPerClient",
                      "\(maximumConnectionsPerClient) is not between 1 and maximumConnections (\(maximumConnections))")
        }
    }
}
