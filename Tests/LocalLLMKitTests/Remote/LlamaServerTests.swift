import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Remote conversations end to end against a real llama-server (from the pinned llama.cpp)
/// serving Qwen2.5-Coder-0.5B-Instruct: each test starts its own server on a free port.
@Suite("Remote: end to end against llama-server", .serialized)
struct RemoteLlamaServerTests {
    struct Verdict: Decodable, Sendable {
        var isPrime: Bool
        var reason: String
    }

    @Test("a plain chat: the answer, the transcript, and the server's counts; the next turn reuses the server's cache")
    func plainChat() async throws {
        let server = try await LlamaServer()
        let conversation = try RemoteConversation(model: server.model(), instructions: "Answer in one short sentence.")
        let response = try await conversation.respond(to: "What is the capital of France?",
                                                      options: .init(maximumResponseTokens: 24, sampling: .greedy))
        #expect(response.text.contains("Paris"), "\(response.text)")
        #expect(response.stopReason == .endOfText)
        #expect(response.statistics.promptTokens > 10 && response.statistics.generatedTokens > 0)
        #expect(response.statistics.timeToFirstToken > .zero)
        #expect(await conversation.transcript.map(\.role) == [.system, .user, .assistant])
        let next = try await conversation.respond(to: "And of Germany?", options: .init(maximumResponseTokens: 24, sampling: .greedy))
        #expect(!next.text.isEmpty)
        // The whole first turn was sent again, and the server found it in its cache.
        #expect(next.statistics.promptTokens > response.statistics.promptTokens + response.statistics.generatedTokens)
        #expect(next.statistics.cachedPromptTokens > response.statistics.promptTokens / 2, "\(next.statistics)")
    }

    @Test("streaming: text deltas, then exactly one .done, last, whose text is the deltas joined")
    func streamingOrder() async throws {
        let server = try await LlamaServer()
        let conversation = try RemoteConversation(model: server.model())
        let stream = conversation.streamResponse(to: "Name three colors.", options: .init(maximumResponseTokens: 24, sampling: .greedy))
        var events: [Conversation.Event] = []
        for try await event in stream { events.append(event) }
        let response = try await stream.result
        #expect(events.count > 2, "the answer came in several deltas")
        #expect(events.last == .done(response))
        #expect(events.filter { if case .done = $0 { true } else { false } }.count == 1)
        let texts = events.dropLast().compactMap { event -> String? in if case .text(let delta) = event { delta } else { nil } }
        #expect(texts.count == events.count - 1, "only text before .done: \(events)")
        #expect(texts.joined() == response.text && !response.text.isEmpty)
        #expect([StopReason.endOfText, .maximumTokens].contains(response.stopReason))
    }

    @Test("a real tool round: the model calls a local DynamicTool with arguments from the question and answers with its result")
    func toolRound() async throws {
        let server = try await LlamaServer()
        let calls = Mutex<[String]>([])
        let weather = DynamicTool(name: "get_weather", description: "Get the current weather in a city.",
                                  parametersSchema: #"{"type":"object","properties":{"city":{"type":"string","description":"The city name"}},"required":["city"]}"#) { arguments in
            calls.withLock { $0.append(arguments) }
            return arguments.contains("Paris") ? #"{"temperature_celsius": 17, "sky": "light rain"}"# : #"{"error": "unknown city"}"#
        }
        // Tool choice auto, as in the local tool test: nothing forces the call.
        let conversation = try RemoteConversation(model: server.model(), tools: [weather])
        let stream = conversation.streamResponse(to: "What is the weather like in Paris right now?",
                                                 options: .init(maximumResponseTokens: 128, sampling: .greedy))
        var events: [Conversation.Event] = []
        for try await event in stream { events.append(event) }
        let response = try await stream.result
        let call = try #require(response.toolInvocations.first, "no tool call: \(response.rawText)")
        #expect(call.name == "get_weather" && !call.isError && call.arguments.contains("Paris"), "\(call)")
        #expect(calls.withLock { $0 }.count == 1)
        let started = events.firstIndex { if case .toolCallStarted = $0 { true } else { false } }
        let finished = events.firstIndex { if case .toolCallFinished = $0 { true } else { false } }
        #expect(started != nil && finished != nil && started! < finished!)
        #expect(response.text.contains("17") || response.text.lowercased().contains("rain"), "\(response.text)")
        #expect(response.stopReason == .endOfText)
        let transcript = await conversation.transcript
        #expect(transcript.map(\.role) == [.user, .assistant, .tool, .assistant])
        #expect(transcript[2].toolCallID == transcript[1].toolCalls.first?.id)
    }

    @Test("structured output: a json_schema response_format, enforced by the server, decodes")
    func structuredOutput() async throws {
        let server = try await LlamaServer()
        let conversation = try RemoteConversation(model: server.model())
        let response = try await conversation.respond(to: "Is 17 a prime number?", generating: Verdict.self,
                                                      options: .init(maximumResponseTokens: 96, sampling: .greedy))
        #expect(!response.content.reason.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["isPrime", "reason"], "\(response.text)")
    }

    @Test("one protocol: the same code asks a local conversation and a llama-server one; each answers, decodes, keeps and resets")
    func oneProtocol() async throws {
        let server = try await LlamaServer()
        let model = try await LocalModel.load(from: ReferenceModel.toolCallingURL(), configuration: .init(contextLength: 1024))
        let local = try Conversation(model: model, instructions: "Answer briefly.")
        let remote = try RemoteConversation(model: server.model(), instructions: "Answer briefly.")
        for conversation: any Conversation.Responding in [local, remote] {
            let options = CompletionOptions(maximumResponseTokens: 96, sampling: .greedy)
            let answer = try await conversation.respond(to: "Name the capital of France.", options: options)
            #expect(answer.text.contains("Paris") && answer.stopReason == .endOfText, "\(conversation): \(answer.text)")
            let verdict = try await conversation.respond(to: "Is 17 a prime number?", generating: Verdict.self, options: options)
            #expect(!verdict.content.reason.isEmpty, "\(conversation)")
            #expect(await conversation.transcript.map(\.role) == [.system, .user, .assistant, .user, .assistant])
            #expect(await conversation.transcript.last?.content == verdict.text)
            #expect(await conversation.turnCount == 2)
            await conversation.reset()
            #expect(await conversation.transcript == [.system("Answer briefly.")] && conversation.instructions == "Answer briefly.")
        }
    }

    @Test("breaking out mid-stream closes the connection: the server stops generating, the response is .cancelled")
    func cancellation() async throws {
        let server = try await LlamaServer()
        let conversation = try RemoteConversation(model: server.model())
        let stream = conversation.streamResponse(to: "Write the numbers from 1 to 1000, separated by commas.",
                                                 options: .init(maximumResponseTokens: 3000, sampling: .greedy))
        var texts = 0
        for try await event in stream {
            if case .text = event { texts += 1 }
            if texts == 3 { break }
        }
        let response = try await stream.result
        #expect(response.stopReason == .cancelled)
        #expect(!response.text.isEmpty)
        #expect(await conversation.transcript.isEmpty)
        // 3000 tokens take minutes here; the slot must be free long before.
        var generating = true
        for _ in 0..<100 where generating {
            try await Task.sleep(for: .milliseconds(100))
            generating = try await server.isGenerating()
        }
        #expect(!generating, "llama-server went on generating after the connection closed")
        let again = try await conversation.respond(to: "Say OK.", options: .init(maximumResponseTokens: 4, sampling: .greedy))
        #expect(again.stopReason != .cancelled)
        #expect(await conversation.transcript.count == 2)
    }

    @Test("an API key: a wrong one is unauthorized (chat and model list), the right one works")
    func apiKey() async throws {
        let server = try await LlamaServer(apiKey: "sesame")
        let wrong = try server.model(apiKey: "wrong")
        await #expect(throws: RemoteModel.Error.unauthorized(message: "Invalid API Key")) { try await wrong.availableModels() }
        await #expect(throws: RemoteModel.Error.unauthorized(message: "Invalid API Key")) {
            try await RemoteConversation(model: wrong).respond(to: "Hi", options: .init(maximumResponseTokens: 4))
        }
        let missing = try server.model()
        await #expect(throws: RemoteModel.Error.unauthorized(message: "Invalid API Key")) { try await missing.availableModels() }
        let right = try server.model(apiKey: "sesame")
        #expect(try await right.availableModels().contains("qwen"))
        let reply = try await RemoteConversation(model: right).respond(to: "Say hi.", options: .init(maximumResponseTokens: 4))
        #expect(!reply.text.isEmpty)
    }

    @Test("a request the server refuses is an http error with its message")
    func refusedRequest() async throws {
        let server = try await LlamaServer()
        let conversation = try RemoteConversation(model: server.model())
        // 5000 tokens of prompt do not fit a 2048-token slot.
        let error = await #expect(throws: RemoteModel.Error.self) {
            try await conversation.respond(to: String(repeating: "hello ", count: 5000), options: .init(maximumResponseTokens: 4))
        }
        guard case .http(let status, let type, let message)? = error else {
            Issue.record("expected an http error, got \(String(describing: error))")
            return
        }
        #expect(status == 400 && type == "exceed_context_size_error" && !message.isEmpty, "\(status) \(String(describing: type)) \(message)")
    }
}
