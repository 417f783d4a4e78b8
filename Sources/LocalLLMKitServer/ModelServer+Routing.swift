import Foundation
import LocalLLMKit

extension ModelServer {
    /// An endpoint: its methods and what answers it.
    private struct Route {
        let methods: [String]
        let needsKey: Bool
        let answer: (ModelServer, HTTPExchange) async -> Int
    }

    /// Answers one request and returns its status: CORS, the API key, the path and the method,
    /// then the endpoint.
    func route(_ exchange: HTTPExchange) async -> Int {
        var path = exchange.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if !path.hasPrefix("/v1/"), !["/health", "/metrics", "/v1"].contains(path) { path = "/v1" + path }
        let cors = corsHeaders(for: exchange)
        if exchange.method == "OPTIONS", configuration.corsOrigin != nil {
            exchange.respond(status: 204, headers: cors + [
                ("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS"),
                ("Access-Control-Allow-Headers", "Authorization, Content-Type, X-API-Key, Anthropic-Version"),
                ("Access-Control-Max-Age", "600"),
            ], body: "")
            return 204
        }
        // /health stays open to probes that name the server as they please; it tells nothing.
        if path != "/health", let host = exchange.headers["host"], !hostPolicy.allows(host) {
            return fail(exchange, .forbiddenHost(host), cors: cors)
        }
        guard let route = Self.route(for: path) else {
            return fail(exchange, .notFound("No endpoint \(exchange.method) \(exchange.path).", code: "unknown_url"), cors: cors)
        }
        guard route.methods.contains(exchange.method) else {
            return fail(exchange, .methodNotAllowed(exchange.method, path: path, allowed: route.methods), cors: cors)
        }
        if route.needsKey, let key = configuration.apiKey, !Self.authorizes(exchange.headers["authorization"], key: key),
           !Self.matches(exchange.headers["x-api-key"], key: key) {
            return fail(exchange, .unauthorized, cors: cors)
        }
        // A browser sends text/plain (or a form) across sites without asking first; JSON it does not.
        if exchange.method == "POST" || exchange.method == "DELETE", !Self.isJSON(exchange.headers["content-type"]) {
            return fail(exchange, .unsupportedMediaType(exchange.headers["content-type"]), cors: cors)
        }
        return await route.answer(self, exchange)
    }

    private static func route(for path: String) -> Route? {
        switch path {
        case "/health": return Route(methods: ["GET"], needsKey: false) { server, exchange in server.health(exchange) }
        case "/metrics": return Route(methods: ["GET"], needsKey: true) { server, exchange in await server.serveMetrics(exchange) }
        case "/v1/models": return Route(methods: ["GET"], needsKey: true) { server, exchange in await server.listModels(exchange) }
        case "/v1/ps", "/v1/api/ps":
            return Route(methods: ["GET"], needsKey: true) { server, exchange in await server.listLoadedModels(exchange) }
        case "/v1/chat/completions":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.chatCompletion(exchange) }
        case "/v1/completions":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.textCompletion(exchange) }
        case "/v1/messages":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.messages(exchange) }
        case "/v1/messages/count_tokens":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.countMessageTokens(exchange) }
        case "/v1/api/chat":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.ollamaChat(exchange) }
        case "/v1/api/generate":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.ollamaGenerate(exchange) }
        case "/v1/api/embed", "/v1/api/embeddings":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in
                await server.ollamaEmbed(exchange, legacy: path.hasSuffix("embeddings"))
            }
        case "/v1/api/tags":
            return Route(methods: ["GET"], needsKey: true) { server, exchange in await server.ollamaTags(exchange) }
        case "/v1/api/show":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.ollamaShow(exchange) }
        case "/v1/api/pull":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.ollamaPull(exchange) }
        case "/v1/api/copy":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.ollamaCopy(exchange) }
        case "/v1/api/delete":
            return Route(methods: ["DELETE"], needsKey: true) { server, exchange in await server.ollamaDelete(exchange) }
        case "/v1/api/version":
            return Route(methods: ["GET"], needsKey: true) { server, exchange in server.ollamaVersion(exchange) }
        case "/v1/tokenize":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.tokenize(exchange) }
        case "/v1/detokenize":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.detokenize(exchange) }
        case "/v1/apply-template":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.applyTemplate(exchange) }
        case "/v1/rerank", "/v1/reranking":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.rerank(exchange) }
        case "/v1/lora-adapters":
            return Route(methods: ["GET", "POST"], needsKey: true) { server, exchange in
                exchange.method == "POST" ? await server.setAdapters(exchange) : await server.listAdapters(exchange)
            }
        case "/v1/embeddings":
            return Route(methods: ["POST"], needsKey: true) { server, exchange in await server.embeddings(exchange) }
        case "/v1/models/unload":
            // POST unloads (llmkit stop); GET still shows a model whose id is `unload`.
            return Route(methods: ["GET", "POST"], needsKey: true) { server, exchange in
                if exchange.method == "POST" { return await server.unloadModel(exchange) }
                return await server.showModel(exchange, path: path)
            }
        case _ where path.hasPrefix("/v1/models/"):
            return Route(methods: ["GET"], needsKey: true) { server, exchange in await server.showModel(exchange, path: path) }
        default: return nil
        }
    }

    /// Whether a `Content-Type` is JSON: `application/json` or a `+json` type, parameters allowed.
    static func isJSON(_ header: String?) -> Bool {
        guard let header else { return false }
        let type = header.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    /// Whether `header` is `Bearer <key>` (the scheme in any case, as RFC 7235 has it), compared
    /// in constant time (the time depends on the lengths only, not on where the bytes differ).
    static func authorizes(_ header: String?, key: String) -> Bool {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return false }
        return matches(String(header.dropFirst(7).drop(while: { $0 == " " })), key: key)
    }

    /// Whether `given` (Anthropic's `x-api-key` header, or a bearer token) is `key`, compared in
    /// constant time.
    static func matches(_ value: String?, key: String) -> Bool {
        guard let value else { return false }
        let given = Array(value.utf8)
        let expected = Array(key.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    /// The CORS headers of an answer: none unless the server was given an origin.
    func corsHeaders(for exchange: HTTPExchange) -> [(String, String)] {
        guard let origin = configuration.corsOrigin else { return [] }
        if origin == "*" { return [("Access-Control-Allow-Origin", "*")] }
        guard exchange.headers["origin"] == origin else { return [] }
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// Answers with an API error; returns its status.
    @discardableResult
    func fail(_ exchange: HTTPExchange, _ error: APIError, cors: [(String, String)] = []) -> Int {
        var error = error
        error.message = withoutModelPaths(error.message)
        // Anthropic's and Ollama's clients read errors in their own shapes.
        let path = exchange.path
        let body = if path.hasPrefix("/v1/messages") || path.hasPrefix("/messages") {
            MessagesJSON.error(error).serialized()
        } else if path.hasPrefix("/api/") || path.hasPrefix("/v1/api/") {
            OllamaJSON.error(error).serialized()
        } else {
            error.body
        }
        exchange.respond(status: error.status, headers: error.headers + cors, body: body)
        return error.status
    }

    /// `message` with the files and folders of the served models named by their served names:
    /// an error (a model that cannot load, say) must not show clients this machine's folders.
    func withoutModelPaths(_ message: String) -> String {
        var message = message
        for entry in models {
            guard let url = entry.source?.url ?? entry.loaded?.model.url else { continue }
            message = message.replacingOccurrences(of: url.path, with: entry.id)
            let folder = url.deletingLastPathComponent().path
            if folder.count > 1 { message = message.replacingOccurrences(of: folder + "/", with: "") }
        }
        if let root = library?.library.root.path, root.count > 1 { message = message.replacingOccurrences(of: root, with: "<library>") }
        return message
    }

    /// Answers with JSON; returns the status.
    @discardableResult
    func succeed(_ exchange: HTTPExchange, _ json: OrderedJSON, status: Int = 200) -> Int {
        exchange.respond(status: status, headers: corsHeaders(for: exchange), body: json.serialized())
        return status
    }

    /// Answers with a whole chat completion (OpenAI's wire type).
    func succeed(_ exchange: HTTPExchange, _ completion: ChatCompletionChunk) -> Int {
        exchange.respond(status: 200, headers: corsHeaders(for: exchange), body: completion.serialized())
        return 200
    }

    /// The served model a request names: a fixed model's id, or a library model's name.
    func servedModel(named id: String) async throws(APIError) -> ServedEntry {
        if let fixed = fixedModels.first(where: { $0.id == id }) { return fixed }
        guard let served = try await libraryModel(named: id) else {
            throw .notFound("The model '\(id)' does not exist; this server has \(fixedModels.map(\.id).joined(separator: ", "))"
                            + (library == nil ? "." : " and those of its library (GET /v1/models)."),
                            param: "model", code: "model_not_found")
        }
        return served
    }

    /// The model a generation or embedding request asks for in its `model` field: a fixed
    /// model by its id (`:latest` may follow, as Ollama's clients write names), else a model of
    /// the library (``libraryModel(named:)``). A server of one fixed model answers with it
    /// whatever else the request names, or when it names none (as llama-server does: clients
    /// send names of their own, such as `gpt-4o-mini`); a server of several needs the id.
    /// Ollama's endpoints pass `strict`: its clients name models they know, and a name that
    /// finds none is a 404, as Ollama answers it.
    func servedModel(requestedBy body: RequestBody, strict: Bool = false) async throws(APIError) -> ServedEntry {
        let requested = try body.string("model")
        if let requested, let exact = fixedModels.first(where: { $0.id == requested }) { return exact }
        if let requested, requested.hasSuffix(":latest"),
           let untagged = fixedModels.first(where: { $0.id == String(requested.dropLast(":latest".count)) }) { return untagged }
        if let requested, let found = try await libraryModel(named: requested) { return found }
        if fixedModels.count == 1, !strict || requested == nil { return fixedModels[0] }
        guard let requested else {
            throw .invalid("'model' is required: this server has \(fixedModels.map(\.id).joined(separator: ", ")).", param: "model")
        }
        return try await servedModel(named: requested)
    }

    private func health(_ exchange: HTTPExchange) -> Int {
        succeed(exchange, .object([("status", .string("ok"))]))
    }

    private func listModels(_ exchange: HTTPExchange) async -> Int {
        await refreshLibraryModels()
        return succeed(exchange, .object([("object", .string("list")), ("data", .array(models.map(\.json)))]))
    }

    private func showModel(_ exchange: HTTPExchange, path: String) async -> Int {
        let id = String(path.dropFirst("/v1/models/".count)).removingPercentEncoding ?? ""
        do throws(APIError) {
            return succeed(exchange, try await servedModel(named: id).json)
        } catch {
            return fail(exchange, error, cors: corsHeaders(for: exchange))
        }
    }
}
