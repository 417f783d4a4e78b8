import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// The tiered assistant over real backends: Qwen2.5-Coder-0.5B on this machine, llama-server from
/// the pinned tree, a fake OpenAI server for the failures a real one seldom shows, and rules.
@Suite("Assistant", .serialized)
struct AssistantTests {
    struct Capital: Decodable, Sendable, Equatable {
        var country: String
        var capital: String
    }

    static let instructions = "Give the country's capital as JSON with the fields country and capital."
    static let examples = [(input: "Japan", output: #"{"country": "Japan", "capital": "Tokyo"}"#),
                           (input: "Italy", output: #"{"country": "Italy", "capital": "Rome"}"#)]
    static let options = CompletionOptions.greedy(maximumResponseTokens: 40)

    /// The last resort of every test: a rule that knows one capital.
    static let rules = RulesBackend { _ in "Paris." }
        .answering(Capital.self) { request in request.prompt == "France" ? Capital(country: "France", capital: "Paris") : nil }

    static func local() throws -> LocalBackend {
        LocalBackend(url: try ReferenceModel.toolCallingURL(), configuration: .init(contextLength: 1024),
                     residency: LoadedModels(policy: .init(keepAlive: nil)))
    }

    static func assistant(_ tiers: [Assistant.Tier]) -> Assistant {
        Assistant(tiers: tiers, instructions: instructions, examples: examples)
    }

    @Test("the local tier answers with the type's grammar; the rules tier is not asked")
    func localTier() async throws {
        let answer = try await Self.assistant([.init(try Self.local()), .init(Self.rules)])
            .respond(to: "France", generating: Capital.self, options: Self.options)
        #expect(answer.tier == 0 && answer.skipped.isEmpty && answer.backendName == "local qwen2.5-coder-0.5b-instruct")
        #expect(answer.content.country == "France", "\(answer.response.text)")
        #expect(answer.content.capital == "Paris", "\(answer.response.text)")
    }

    @Test("the remote tier (llama-server) answers with json_schema after a missing local model")
    func remoteTier() async throws {
        let server = try await LlamaServer()
        let missing = LocalBackend(url: URL(filePath: "/nonexistent/model.gguf"))
        let answer = try await Self.assistant([.init(missing), .init(RemoteBackend(model: try server.model()), timeout: .seconds(120)),
                                               .init(Self.rules)])
            .respond(to: "France", generating: Capital.self, options: Self.options)
        #expect(answer.tier == 1, "\(answer.skipped)")
        #expect(answer.content == Capital(country: "France", capital: "Paris"), "\(answer.response.text)")
        guard case .unavailable(let reason) = try #require(answer.skipped.first).reason else {
            Issue.record("the missing model was skipped for \(answer.skipped)")
            return
        }
        #expect(reason.contains("/nonexistent/model.gguf") && reason.contains("not found"), "\(reason)")
    }

    @Test("a server that is down, answers garbage, answers text that is not the type, or is silent is skipped with its reason")
    func remoteFailures() async throws {
        let fake = try FakeOpenAIServer()
        let down = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:\(try FreePort.find())/v1")!, model: "qwen")
        let cases: [(RemoteModel, Duration?, (Assistant.SkipReason) -> Bool)] = [
            (down, nil, { if case .unavailable(let reason) = $0 { reason.contains("did not list its models") } else { false } }),
            (try fake.model("garbage"), nil, { if case .failed = $0 { true } else { false } }),
            (try fake.model("ok"), nil, { if case .undecodable(let reason) = $0 { reason.contains("Hello world") } else { false } }),
            (try fake.model("silent"), .seconds(2), { $0 == .timedOut(.seconds(2)) }),
        ]
        for (model, timeout, expected) in cases {
            let started = ContinuousClock.now
            // The probe of the server's models gets longer than its default 2 s: on a loaded machine
            // the fake server, in this process, can take that long to list them.
            let backend = RemoteBackend(model: model, availabilityTimeout: .seconds(20))
            let answer = try await Self.assistant([.init(backend, timeout: timeout), .init(Self.rules)])
                .respond(to: "France", generating: Capital.self, options: Self.options)
            #expect(answer.tier == 1 && answer.content.capital == "Paris")
            let skip = try #require(answer.skipped.first)
            #expect(answer.skipped.count == 1 && skip.tier == 0 && expected(skip.reason), "\(skip)")
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test("no tier available is a typed error with every reason; currentTier says which would answer")
    func noTier() async throws {
        let missing = LocalBackend(url: URL(filePath: "/nonexistent/model.gguf"))
        let offline = ScriptedBackend([])
        offline.setAvailability(.unavailable(reason: "offline"))
        let assistant = Self.assistant([.init(missing), .init(offline)])
        do {
            _ = try await assistant.respond(to: "France")
            Issue.record("an assistant without an available tier answered")
        } catch let Assistant.Error.noTierAvailable(skipped) {
            #expect(skipped.map(\.tier) == [0, 1])
            #expect(skipped[1].reason == .unavailable("offline"))
        }
        await #expect(throws: Assistant.Error.self) { _ = try await assistant.currentTier() }
        offline.setAvailability(.available)
        let current = try await assistant.currentTier()
        #expect(current.index == 1 && current.backendName == "scripted" && current.skipped.count == 1)
        #expect(offline.requests.isEmpty, "currentTier asked the backend something")
        // Tried and failed is another error than none available.
        await #expect(throws: Assistant.Error.allTiersFailed([
            .init(tier: 0, backendName: missing.name, reason: try #require(try? await assistant.currentTier().skipped[0].reason)),
            .init(tier: 1, backendName: "scripted", reason: .failed("the scripted backend has no step left for this request")),
        ])) { _ = try await assistant.respond(to: "France") }
    }

    @Test("every tier gets the instructions and the examples as earlier turns; tools too")
    func framing() async throws {
        let first = ScriptedBackend([.answer("not json")]), second = ScriptedBackend([.answer(#"{"country": "France", "capital": "Paris"}"#)])
        let answer = try await Self.assistant([.init(first), .init(second)]).respond(to: "France", generating: Capital.self)
        #expect(answer.tier == 1 && answer.content.capital == "Paris")
        guard case .undecodable = answer.skipped.first?.reason else { Issue.record("\(answer.skipped)"); return }
        for backend in [first, second] {
            let request = try #require(backend.requests.first)
            #expect(request.prompt == "France")
            #expect(request.transcript.map(\.role) == [.system, .user, .assistant, .user, .assistant])
            #expect(request.transcript[0].content == Self.instructions && request.transcript[4].content.contains("Rome"))
        }
    }

    @Test("cancelling the caller stops the tier in flight and asks no further tier")
    func cancellation() async throws {
        let slow = ScriptedBackend([.delay(.seconds(30), then: .answer("late"))]), next = ScriptedBackend([.answer("next")])
        let assistant = Self.assistant([.init(slow), .init(next)])
        let task = Task { try await assistant.respond(to: "France") }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(next.requests.isEmpty)
    }

    @Test("a local tier that is generating when its time is up is stopped, and the next tier answers")
    func localTimeout() async throws {
        let local = try Self.local()
        let answer = try await Self.assistant([.init(local, timeout: .milliseconds(1500)), .init(Self.rules)])
            .respond(to: "Write a long story about France.", options: .greedy(maximumResponseTokens: 900))
        #expect(answer.tier == 1 && answer.content == "Paris." && answer.skipped.first?.reason == .timedOut(.milliseconds(1500)),
                "\(answer.skipped)")
        // The generation it started was cancelled, not left running.
        let model = try await local.model()
        try await Task.sleep(for: .milliseconds(500))
        #expect(await model.isIdle)
    }

    @Test("a scripted backend streams its answer in words, and fails past its script")
    func scripted() async throws {
        let script = ScriptedBackend([.answer("one two three"), .failure(URLError(.timedOut))])
        var deltas: [String] = []
        let stream = script.streamResponse(to: BackendRequest("count"))
        for try await event in stream { if case .text(let delta) = event { deltas.append(delta) } }
        #expect(deltas == ["one", " two", " three"])
        #expect(try await stream.result.text == "one two three")
        await #expect(throws: URLError.self) { _ = try await script.respond(to: BackendRequest("again")) }
        await #expect(throws: ScriptedBackend.Error.scriptExhausted) { _ = try await script.respond(to: BackendRequest("more")) }
        #expect(script.requests.map(\.prompt) == ["count", "again", "more"])
    }
}
