import Foundation

/// Asks several backends in order for the first answer that decodes into the app's type: a model
/// on this machine, then a server, then rules, so that an app answers everywhere (a device
/// without the model yet, a server that is down, a test without any model).
///
/// ```swift
/// struct Reply: Decodable, Sendable { var sentiment: String }
/// let assistant = Assistant(tiers: [
///     .init(LocalBackend(named: "qwen2.5-coder-0.5b-instruct"), timeout: .seconds(20)),
///     .init(RemoteBackend(model: try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")), timeout: .seconds(10)),
///     .init(RulesBackend { _ in nil }.answering(Reply.self) { _ in Reply(sentiment: "neutral") }),
/// ], instructions: "Classify the sentiment of the text.", examples: [(input: "I love it", output: #"{"sentiment": "positive"}"#)])
/// let reply = try await assistant.respond(to: "The food was cold.", generating: Reply.self)
/// print(reply.content.sentiment, reply.backendName, reply.skipped)
/// ```
///
/// Each tier gets the instructions and the few-shot examples (as earlier turns), in its own way
/// of answering: the local tier constrains its output with the type's grammar, the remote tier
/// asks for `response_format: json_schema`, the rules tier runs its closure. A tier that is
/// unavailable, fails, takes longer than its timeout, or answers something that does not decode
/// is skipped, and the response says why. Cancelling the task that asks stops the tier in
/// flight and asks no further tier.
public struct Assistant: Sendable {
    /// One backend and how long it may take.
    public struct Tier: Sendable {
        /// The backend.
        public var backend: any ModelBackend
        /// The longest an answer may take (availability included); nil: no limit.
        public var timeout: Duration?

        /// A tier of `backend`.
        public init(_ backend: any ModelBackend, timeout: Duration? = nil) {
            self.backend = backend
            self.timeout = timeout
        }
    }

    /// The tiers, asked in this order.
    public let tiers: [Tier]
    /// The system message every tier gets.
    public let instructions: String?
    /// Few-shot examples every tier gets, as earlier turns.
    public let examples: [BackendRequest.Example]
    /// Tools every tier may call.
    public let tools: [any ConversationTool]

    /// An assistant over `tiers`.
    /// - Parameters:
    ///   - examples: worked examples: what the user said, and the answer (JSON for a `Decodable` type).
    public init(tiers: [Tier], instructions: String? = nil, examples: [(input: String, output: String)] = [],
                tools: [any ConversationTool] = []) {
        self.tiers = tiers
        self.instructions = instructions
        self.examples = examples.map { BackendRequest.Example(input: $0.input, output: $0.output) }
        self.tools = tools
    }

    /// The first answer to `prompt` that decodes into `T`.
    /// - Throws: ``Error/noTierAvailable(_:)`` when no tier was available,
    ///   ``Error/allTiersFailed(_:)`` when every tier was skipped, or `CancellationError`.
    public func respond<T: Decodable & Sendable>(to prompt: String, generating type: T.Type,
                                                options: CompletionOptions = .init()) async throws -> Response<T> {
        try await ask(prompt, options: options) { backend, request in try await backend.respond(to: request, generating: type) }
    }

    /// The first tier's answer to `prompt`, as text.
    /// - Throws: as ``respond(to:generating:options:)``.
    public func respond(to prompt: String, options: CompletionOptions = .init()) async throws -> Response<String> {
        try await ask(prompt, options: options) { backend, request in try await backend.respond(to: request) }
    }

    /// The tier that would be asked first now: the first available one, with the reasons of the
    /// tiers before it. Asks no model anything.
    /// - Throws: ``Error/noTierAvailable(_:)`` with every tier's reason when none is available.
    public func currentTier() async throws -> (index: Int, backendName: String, skipped: [Skip]) {
        var skipped: [Skip] = []
        for (index, tier) in tiers.enumerated() {
            switch await Self.availability(of: tier) {
            case .available: return (index, tier.backend.name, skipped)
            case .unavailable(let reason): skipped.append(Skip(tier: index, backendName: tier.backend.name, reason: .unavailable(reason)))
            }
        }
        throw Error.noTierAvailable(skipped)
    }

    private func ask<Content>(_ prompt: String, options: CompletionOptions,
                              _ answer: @escaping @Sendable (any ModelBackend, BackendRequest) async throws -> ModelResponse<Content>)
        async throws -> Response<Content> {
        let request = BackendRequest(prompt, instructions: instructions, examples: examples, tools: tools, options: options)
        var skipped: [Skip] = []
        for (index, tier) in tiers.enumerated() {
            try Task.checkCancellation()
            let started = ContinuousClock.now
            let skip = { (reason: SkipReason) in skipped.append(Skip(tier: index, backendName: tier.backend.name, reason: reason)) }
            if case .unavailable(let reason) = await Self.availability(of: tier) {
                try Task.checkCancellation()
                skip(.unavailable(reason))
                continue
            }
            let remaining = tier.timeout.map { $0 - (ContinuousClock.now - started) }
            do {
                let response = try await Self.withDeadline(remaining) { try await answer(tier.backend, request) }
                return Response(response: response, tier: index, backendName: tier.backend.name, skipped: skipped)
            } catch {
                if Task.isCancelled { throw CancellationError() }       // the caller's: no further tier
                skip(SkipReason(error, timeout: tier.timeout))
            }
        }
        if skipped.allSatisfy({ if case .unavailable = $0.reason { true } else { false } }) {
            throw Error.noTierAvailable(skipped)
        }
        throw Error.allTiersFailed(skipped)
    }

    /// A tier's availability, within its timeout.
    private static func availability(of tier: Tier) async -> BackendAvailability {
        do {
            return try await withDeadline(tier.timeout) { await tier.backend.availability() }
        } catch {
            return .unavailable(reason: "it did not say whether it is available within \(tier.timeout ?? .zero)")
        }
    }

    /// `body`'s result, or ``DeadlineExceeded`` once `limit` has passed (`body` is cancelled).
    static func withDeadline<Result: Sendable>(_ limit: Duration?,
                                               _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        guard let limit else { return try await body() }
        guard limit > .zero else { throw DeadlineExceeded() }
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else { throw DeadlineExceeded() }
            return result
        }
    }

    /// A tier ran out of time.
    struct DeadlineExceeded: Swift.Error {}
}
