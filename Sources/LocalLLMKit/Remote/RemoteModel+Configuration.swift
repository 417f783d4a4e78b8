extension RemoteModel {
    /// Timeouts, retries, and bounds on what a server may send.
    ///
    /// ```swift
    /// let configuration = RemoteModel.Configuration(requestTimeout: .seconds(30), deadline: .seconds(120),
    ///                                               maximumRetries: 3)
    /// ```
    ///
    /// A request is tried again, after a pause, when it failed in a way that another attempt may
    /// fix and before anything of the answer arrived: the connection could not be made or broke
    /// before the response, or the server answered 429, 502, 503 or 504. The pause is the
    /// server's `Retry-After` when it sent one, otherwise ``retryDelay`` doubled at each retry.
    /// Once the first byte of a streamed answer has arrived, nothing is retried.
    public struct Configuration: Sendable, Equatable {
        /// How long the server may stay silent: before its response begins, and between two
        /// pieces of a streamed answer. Past it the request fails with ``RemoteModel/Error/timedOut(after:)``.
        public var requestTimeout: Duration
        /// The longest one request may take in all, from its first attempt to its last byte,
        /// pauses between retries included; `nil` means no limit. Each round of a
        /// conversation turn is one request; tools run between requests, outside this limit.
        public var deadline: Duration?
        /// How many times a failed request is tried again (0: never).
        public var maximumRetries: Int
        /// The pause before the first retry; it doubles at each further one.
        public var retryDelay: Duration
        /// The longest pause the client accepts: a `Retry-After` beyond it (or beyond what the
        /// ``deadline`` leaves) ends the request with the server's error instead of waiting.
        public var maximumRetryDelay: Duration
        /// How much a server may send.
        public var limits: Limits

        /// Creates a configuration; every argument is optional.
        public init(requestTimeout: Duration = .seconds(60), deadline: Duration? = .seconds(600), maximumRetries: Int = 2,
                    retryDelay: Duration = .milliseconds(500), maximumRetryDelay: Duration = .seconds(30),
                    limits: Limits = .init()) {
            self.requestTimeout = requestTimeout
            self.deadline = deadline
            self.maximumRetries = maximumRetries
            self.retryDelay = retryDelay
            self.maximumRetryDelay = maximumRetryDelay
            self.limits = limits
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``RemoteModel/Error/invalidConfiguration(name:reason:)``.
        public func validate() throws {
            func fail(_ name: String, _ reason: String) -> RemoteModel.Error { .invalidConfiguration(name: name, reason: reason) }
            if requestTimeout <= .zero { throw fail("requestTimeout", "\(requestTimeout) is not positive") }
            if let deadline, deadline <= .zero { throw fail("deadline", "\(deadline) is not positive") }
            if maximumRetries < 0 { throw fail("maximumRetries", "\(maximumRetries) is negative") }
            if retryDelay < .zero { throw fail("retryDelay", "\(retryDelay) is negative") }
            if maximumRetryDelay < .zero { throw fail("maximumRetryDelay", "\(maximumRetryDelay) is negative") }
            try limits.validate()
        }
    }

    /// Bounds on what a server may send; an answer beyond one fails with
    /// ``RemoteModel/Error/invalidResponse(reason:)`` instead of filling the memory.
    public struct Limits: Sendable, Equatable {
        /// The most bytes of one response (a whole streamed answer, or an error or model list).
        public var maximumResponseBytes: Int
        /// The most bytes of one server-sent event, and of one line of the stream.
        public var maximumEventBytes: Int
        /// The most tool calls in one answer.
        public var maximumToolCalls: Int
        /// The most bytes of one tool call's name and arguments.
        public var maximumArgumentBytes: Int

        /// Creates bounds; every argument is optional.
        public init(maximumResponseBytes: Int = 64 << 20, maximumEventBytes: Int = 1 << 20, maximumToolCalls: Int = 64,
                    maximumArgumentBytes: Int = 1 << 20) {
            self.maximumResponseBytes = maximumResponseBytes
            self.maximumEventBytes = maximumEventBytes
            self.maximumToolCalls = maximumToolCalls
            self.maximumArgumentBytes = maximumArgumentBytes
        }

        /// Checks every value, naming the first one that cannot work.
        /// - Throws: ``RemoteModel/Error/invalidConfiguration(name:reason:)``.
        public func validate() throws {
            let values = [("maximumResponseBytes", maximumResponseBytes), ("maximumEventBytes", maximumEventBytes),
                          ("maximumToolCalls", maximumToolCalls), ("maximumArgumentBytes", maximumArgumentBytes)]
            if let (name, value) = values.first(where: { $0.1 < 1 }) {
                throw RemoteModel.Error.invalidConfiguration(name: "limits.\(name)", reason: "\(value) is not at least 1")
            }
        }
    }
}
