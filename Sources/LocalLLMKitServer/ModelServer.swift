import Foundation
import LocalLLMKit
import Synchronization

/// An OpenAI-compatible HTTP server over local models: `POST /v1/chat/completions` (streaming,
/// tools, structured output), `POST /v1/completions`, `POST /v1/embeddings`, `GET /v1/models`,
/// `GET /v1/ps` (the models loaded now), `POST /v1/models/unload` (unload one now), `GET /health` and `GET /metrics`,
/// llama-server's `POST /tokenize`, `/detokenize`, `/apply-template` and `/v1/rerank` (for a
/// reranker), Anthropic's `POST /v1/messages` and `/v1/messages/count_tokens`, and Ollama's
/// `/api/…` endpoints. Any OpenAI, Anthropic or Ollama client library can use it; it is what
/// `llmkit serve` runs. An embedding model (BERT) answers `/v1/embeddings` only; its
/// completions get a 400 that says so.
///
/// ```swift
/// let model = try await LocalModel.load(from: url, configuration: .init(parallelSequences: 4))
/// let server = try ModelServer(models: ["smollm2": model], configuration: .init(port: 8080))
/// print("listening on", server.baseURL)        // http://127.0.0.1:8080/v1
/// // …
/// await server.stop(drainingFor: .seconds(10))
/// ```
///
/// Requests generate on the model's sequences (``LocalModel/Configuration/Serving/parallelSequences``),
/// batched together; past them they wait in the model's queue
/// (``LocalModel/Configuration/Serving/maximumQueuedRequests``), and past that they get `429` with
/// `Retry-After`. A client that disconnects cancels its generation within one decode step.
public final class ModelServer: Sendable {
    /// The settings it was started with.
    public let configuration: Configuration
    /// The port it listens on (the one picked when the configuration asked for port 0).
    public var port: Int { listener.withLock { $0?.port ?? 0 } }
    /// The base URL of the API, e.g. `http://127.0.0.1:8080/v1`.
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)/v1")!
    }

    /// The models it was started with.
    let fixedModels: [ServedEntry]
    /// The library it also serves from, and may change (Ollama's `/api/pull`, `/api/copy`,
    /// `/api/delete`); nil serves the fixed models only.
    let library: LibraryAccess?
    /// The library's models that requests and listings have found so far, by library entry id.
    let libraryModels = Mutex<[String: ServedEntry]>([:])
    /// Every model it answers for now: the fixed ones, then those found in the library.
    var models: [ServedEntry] {
        fixedModels + libraryModels.withLock { $0.values.sorted { $0.id < $1.id } }
    }
    /// Where models are loaded on demand (``init(sources:residency:configuration:)``); nil when
    /// every model was loaded before.
    let residency: LoadedModels?
    let metrics = ServerMetrics()
    /// The `Host` header values it answers to.
    let hostPolicy: HostPolicy
    private let listener = Mutex<HTTPListener?>(nil)
    private let requests = Mutex(RequestTable())

    /// The requests being answered, and whether new ones are taken.
    struct RequestTable {
        var accepting = true
        var nextID = 0
        var running: [Int: Task<Void, Never>] = [:]
        /// Requests that ended before their task was recorded.
        var endedEarly: Set<Int> = []
    }

    /// Starts serving `models` (id → model; clients name the id in `model`).
    /// - Throws: ``Error/invalidConfiguration(name:reason:)``, ``Error/invalidModelID(_:reason:)``,
    ///   ``Error/bindFailed(address:reason:)``, or the error of a model whose chat template cannot load.
    public convenience init(models: [String: LocalModel], configuration: Configuration = .init()) throws {
        try Self.check(ids: Array(models.keys))
        try self.init(entries: models.sorted { $0.key < $1.key }.map { try ServedEntry(id: $0.key, model: $0.value) },
                      residency: nil, library: nil, configuration: configuration)
    }

    /// Starts serving the models of `sources` (id → file and configuration), which `residency`
    /// loads when a request needs one, and may unload by its policy (an idle model after its
    /// keep-alive; the least recently used idle one when another needs the memory). `GET /v1/ps`
    /// lists what is loaded. With `library`, it also answers for every model the library finds
    /// by name (``ModelLibrary/entry(named:)``), loading it as the library access says, and lists
    /// them; Ollama's clients may then pull, copy and delete models there.
    /// - Throws: the errors of ``init(models:configuration:)``, or of reading a source's file.
    public convenience init(sources: [String: Source], residency: LoadedModels = .shared, library: LibraryAccess? = nil,
                            configuration: Configuration = .init()) async throws {
        try Self.check(ids: Array(sources.keys))
        let entries = try sources.sorted { $0.key < $1.key }.map {
            try ServedEntry(id: $0.key, source: $0.value, residency: residency)
        }
        // What the server read from a model goes when the residency unloads it.
        try self.init(entries: entries, residency: residency, library: library, configuration: configuration)
        await residency.onUnload { [weak self] model in self?.models.forEach { $0.forget(model) } }
    }

    private static func check(ids: [String]) throws {
        guard !ids.isEmpty else { throw Error.invalidModelID("", reason: "at least one model must be served") }
        for id in ids where id.isEmpty || id.utf8.count > 256 || id.contains(where: { $0.isNewline || $0 == "\"" }) {
            throw Error.invalidModelID(id, reason: "an id has 1 to 256 characters, without quotes or line breaks")
        }
    }

    private init(entries: [ServedEntry], residency: LoadedModels?, library: LibraryAccess?, configuration: Configuration) throws {
        try configuration.validate()
        self.configuration = configuration
        self.fixedModels = entries
        self.library = library
        self.residency = residency
        self.hostPolicy = HostPolicy(configuration)
        let limits = HTTPListener.Limits(maximumBodyBytes: configuration.maximumBodyBytes, headerTimeout: configuration.headerTimeout,
                                         requestTimeout: configuration.requestTimeout, ioTimeout: configuration.ioTimeout,
                                         keepAliveTimeout: .seconds(5), workerThreads: configuration.maximumConcurrentRequests,
                                         maximumConnections: configuration.maximumConnections,
                                         maximumConnectionsPerClient: configuration.maximumConnectionsPerClient)
        let started = try HTTPListener(host: configuration.host, port: configuration.port, limits: limits) { [weak self] exchange in
            guard let self else {
                exchange.respond(status: 503, body: APIError.shuttingDown.body)
                return
            }
            self.accept(exchange)
        }
        listener.withLock { $0 = started }
    }

    /// A server that was never stopped stops listening when it goes away (requests in flight hold
    /// it, so none is left unanswered).
    deinit {
        listener.withLock { state -> HTTPListener? in defer { state = nil }; return state }?.stop()
    }

    /// Stops the server: new requests get `503` at once, requests in flight may finish for up to
    /// `drainTimeout`, then the rest are cancelled (their clients get what was generated so far,
    /// or an error). Returns once every connection is closed.
    public func stop(drainingFor drainTimeout: Duration = .seconds(10)) async {
        requests.withLock { $0.accepting = false }
        let deadline = ContinuousClock.now + drainTimeout
        while ContinuousClock.now < deadline, requests.withLock({ !$0.running.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for task in requests.withLock({ Array($0.running.values) }) { task.cancel() }
        guard let stopping = listener.withLock({ state -> HTTPListener? in defer { state = nil }; return state }) else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                stopping.stop()
                done.resume()
            }
        }
    }

    /// Requests being answered now (this one included, for `/metrics`).
    var requestsInFlight: Int { requests.withLock { $0.running.count } }

    /// Runs one request on a task of its own, cancelled if its client goes away.
    private func accept(_ exchange: HTTPExchange) {
        let id: Int? = requests.withLock { table in
            guard table.accepting else { return nil }
            table.nextID += 1
            return table.nextID
        }
        guard let id else {
            exchange.respond(status: 503, headers: APIError.shuttingDown.headers, body: APIError.shuttingDown.body)
            return
        }
        let started = ContinuousClock.now
        let task = Task {
            let status = await self.route(exchange)
            self.metrics.recordRequest(endpoint: Self.endpointLabel(exchange.path), status: status)
            if self.configuration.logsRequests {
                let milliseconds = (ContinuousClock.now - started).milliseconds
                FileHandle.standardError.write(Data("\(exchange.method) \(exchange.path) \(status) \(milliseconds) ms\n".utf8))
            }
            self.requests.withLock { table in
                if table.running.removeValue(forKey: id) == nil { table.endedEarly.insert(id) }
            }
        }
        requests.withLock { table in
            if table.endedEarly.remove(id) == nil { table.running[id] = task }
        }
        exchange.onClose { task.cancel() }
    }

    /// The metrics label of a path (bounded: unknown paths share one label).
    static func endpointLabel(_ path: String) -> String {
        let known = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/models", "/v1/ps", "/health", "/metrics"]
        let normalized = path.hasPrefix("/v1/") || ["/health", "/metrics"].contains(path) ? path : "/v1" + path
        if normalized.hasPrefix("/v1/models/") { return "/v1/models" }
        if normalized == "/v1/api/ps" { return "/v1/ps" }
        return known.contains(normalized) ? normalized : "other"
    }
}
