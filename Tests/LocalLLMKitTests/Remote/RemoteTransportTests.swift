import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Retries, timeouts and HTTP errors against a real HTTP server on 127.0.0.1 (``FakeOpenAIServer``).
@Suite("Remote: transport, retries, timeouts and errors", .serialized)
struct RemoteTransportTests {
    let server: FakeOpenAIServer

    init() throws {
        server = try FakeOpenAIServer()
    }

    /// Quick retries, so that the tests do not wait long.
    static let quick = RemoteModel.Configuration(requestTimeout: .seconds(20), deadline: .seconds(60), maximumRetries: 2,
                                                 retryDelay: .milliseconds(50))

    /// The error `body` throws, which must be a ``RemoteModel/Error``.
    static func remoteError(_ body: () async throws -> Void) async -> RemoteModel.Error? {
        do {
            try await body()
            return nil
        } catch let error as RemoteModel.Error {
            return error
        } catch {
            Issue.record("not a RemoteModel.Error: \(error)")
            return nil
        }
    }

    @Test("a 503 with Retry-After is retried after the pause it asks for, and the answer comes through")
    func retryAfter503() async throws {
        let conversation = try RemoteConversation(model: server.model("flaky", configuration: Self.quick))
        let started = ContinuousClock.now
        let response = try await conversation.respond(to: "Hi")
        #expect(response.content == "Hello world")
        #expect(ContinuousClock.now - started >= .seconds(1), "Retry-After: 1 was not honoured")
        let requests = try server.log("flaky").filter { $0.event == "request" }
        #expect(requests.count == 2)
        #expect(requests.map(\.body) == [requests[0].body, requests[0].body], "the retry sent another request")
    }

    @Test("without retries the 503 is an http error with the server's type and message")
    func noRetries() async throws {
        var configuration = Self.quick
        configuration.maximumRetries = 0
        let conversation = try RemoteConversation(model: server.model("flaky", configuration: configuration))
        let error = await Self.remoteError { _ = try await conversation.respond(to: "Hi") }
        #expect(error == .http(status: 503, type: "unavailable_error", message: "Loading model"))
        #expect(error?.localizedDescription == "the server answered HTTP 503 (unavailable_error): Loading model")
        #expect(await conversation.transcript.isEmpty, "a failed turn leaves the transcript as it was")
    }

    @Test("429: retried as configured, then rateLimited with the server's Retry-After; a longer pause than accepted is not waited for")
    func rateLimited() async throws {
        // (retries, longest accepted pause, requests expected): Retry-After is one second.
        for (retries, longest, requests) in [(1, Duration.seconds(30), 2), (2, .milliseconds(500), 1)] {
            let before = try server.log("ratelimit").count
            var configuration = Self.quick
            (configuration.maximumRetries, configuration.maximumRetryDelay) = (retries, longest)
            let conversation = try RemoteConversation(model: server.model("ratelimit", configuration: configuration))
            let error = await Self.remoteError { _ = try await conversation.respond(to: "Hi") }
            #expect(error == .rateLimited(retryAfter: .seconds(1)))
            #expect(try server.log("ratelimit").count - before == requests, "\(retries) retries, pauses up to \(longest)")
        }
    }

    @Test("400 and 401 are not retried; their OpenAI error bodies are read")
    func clientErrors() async throws {
        let bad = try RemoteConversation(model: server.model("badrequest", configuration: Self.quick))
        #expect(await Self.remoteError { _ = try await bad.respond(to: "Hi") }
                == .http(status: 400, type: "invalid_request_error", message: "'messages' is required"))
        #expect(try server.log("badrequest").count == 1)
        let wrong = try RemoteConversation(model: server.model("unauthorized", apiKey: "wrong-key", configuration: Self.quick))
        #expect(await Self.remoteError { _ = try await wrong.respond(to: "Hi") } == .unauthorized(message: "Invalid API Key"))
        let right = try RemoteConversation(model: server.model("unauthorized", apiKey: "right-key", configuration: Self.quick))
        #expect(try await right.respond(to: "Hi").content == "Hello world")
        #expect(try server.log("unauthorized").map(\.authorization) == ["Bearer wrong-key", "Bearer right-key"])
    }

    @Test("a server that never answers times out after requestTimeout")
    func silentServer() async throws {
        let configuration = RemoteModel.Configuration(requestTimeout: .seconds(1), deadline: .seconds(60), maximumRetries: 2)
        let conversation = try RemoteConversation(model: server.model("silent", configuration: configuration))
        let error = await Self.remoteError { _ = try await conversation.respond(to: "Hi") }
        #expect(error == .timedOut(after: .seconds(1)))
        #expect(try server.log("silent").count == 1, "a timeout is not retried")
    }

    @Test("a stream that falls silent after it began times out after requestTimeout too")
    func stalledStream() async throws {
        let configuration = RemoteModel.Configuration(requestTimeout: .seconds(1), deadline: .seconds(60))
        let conversation = try RemoteConversation(model: server.model("stall", configuration: configuration))
        var texts: [String] = []
        let error = await Self.remoteError {
            for try await event in conversation.streamResponse(to: "Hi") {
                if case .text(let delta) = event { texts.append(delta) }
            }
        }
        #expect(texts == ["Hel"])
        #expect(error == .timedOut(after: .seconds(1)))
    }

    @Test("a stream that goes on and on ends at the deadline, even though it is never silent")
    func deadline() async throws {
        let configuration = RemoteModel.Configuration(requestTimeout: .seconds(20), deadline: .seconds(1))
        let conversation = try RemoteConversation(model: server.model("trickle", configuration: configuration))
        var texts = 0
        let error = await Self.remoteError {
            for try await event in conversation.streamResponse(to: "Hi") {
                if case .text = event { texts += 1 }
            }
        }
        #expect(error == .timedOut(after: .seconds(1)))
        #expect(texts > 0, "the stream had begun")
        #expect(try await server.waitForDisconnect("trickle"), "the connection was not closed")
    }

    @Test("a refused connection is a transport error that names the cause")
    func connectionRefused() async throws {
        let port = try FreePort.find()
        let model = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!, model: "x",
                                    configuration: .init(maximumRetries: 1, retryDelay: .milliseconds(10)))
        let error = await Self.remoteError { _ = try await model.availableModels() }
        guard case .transport(let reason)? = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("127.0.0.1") && reason.contains("\(port)"), "\(reason)")
        #expect(reason.lowercased().contains("refused"), "\(reason)")
    }

    @Test("the model list comes from GET /models")
    func models() async throws {
        #expect(try await server.model("any").availableModels() == ["qwen", "other"])
        #expect(try server.log("any").map(\.path) == ["/any/v1/models"])
    }

    @Test("Retry-After as seconds, as an HTTP date, and OpenAI's retry-after-ms")
    func retryAfterHeader() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.retryAfter(seconds: "3", milliseconds: nil, now: now) == .seconds(3))
        #expect(RetryPolicy.retryAfter(seconds: "3", milliseconds: "250", now: now) == .milliseconds(250))
        #expect(RetryPolicy.retryAfter(seconds: "Tue, 14 Nov 2023 22:13:30 GMT", milliseconds: nil, now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter(seconds: "-1", milliseconds: nil, now: now) == nil)
        #expect(RetryPolicy.retryAfter(seconds: "soon", milliseconds: nil, now: now) == nil)
        #expect(RetryPolicy.retryAfter(seconds: nil, milliseconds: nil, now: now) == nil)
        #expect(RetryPolicy.delay(beforeRetry: 2, base: .milliseconds(100)) >= .milliseconds(400))
    }

    @Test("error bodies: OpenAI's object, a bare string, FastAPI's detail, text, nothing")
    func errorBodies() {
        func error(_ status: Int, _ body: String) -> RemoteModel.Error {
            .response(status: status, body: Data(body.utf8), retryAfter: nil)
        }
        #expect(error(400, #"{"error":{"message":"bad","type":"invalid_request_error","param":"x","code":"c"}}"#)
                == .http(status: 400, type: "invalid_request_error", message: "bad"))
        #expect(error(500, #"{"error":"boom"}"#) == .http(status: 500, type: nil, message: "boom"))
        #expect(error(422, #"{"detail":"field required"}"#) == .http(status: 422, type: nil, message: "field required"))
        #expect(error(502, "<html>Bad Gateway</html>") == .http(status: 502, type: nil, message: "<html>Bad Gateway</html>"))
        #expect(error(404, "") == .http(status: 404, type: nil, message: "not found"))
        #expect(error(401, "") == .unauthorized(message: "unauthorized"))
    }

    @Test("bad values fail when the model is described, before any request")
    func configuration() {
        let url = URL(string: "http://127.0.0.1:1/v1")!
        #expect(throws: RemoteModel.Error.invalidConfiguration(name: "baseURL", reason: "file:///tmp is not an http or https URL")) {
            try RemoteModel(baseURL: URL(string: "file:///tmp")!, model: "x")
        }
        #expect(throws: RemoteModel.Error.invalidConfiguration(name: "model", reason: "the model id is empty")) {
            try RemoteModel(baseURL: url, model: "")
        }
        #expect(throws: RemoteModel.Error.self) { try RemoteModel(baseURL: url, model: "x", apiKey: "a\nb") }
        #expect(throws: RemoteModel.Error.invalidConfiguration(name: "maximumRetries", reason: "-1 is negative")) {
            try RemoteModel(baseURL: url, model: "x", configuration: .init(maximumRetries: -1))
        }
        #expect(throws: RemoteModel.Error.invalidConfiguration(name: "limits.maximumToolCalls", reason: "0 is not at least 1")) {
            try RemoteModel(baseURL: url, model: "x", configuration: .init(limits: .init(maximumToolCalls: 0)))
        }
    }
}
