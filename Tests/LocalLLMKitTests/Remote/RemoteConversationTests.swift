import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Remote conversations against canned answers of a real HTTP server on 127.0.0.1
/// (``FakeOpenAIServer``): events, tools, stop reasons, statistics, hostile answers.
@Suite("Remote: conversations against canned answers", .serialized)
struct RemoteConversationTests {
    let server: FakeOpenAIServer

    init() throws {
        server = try FakeOpenAIServer()
    }

    /// The events of a streamed turn, and its result.
    static func collect(_ stream: Conversation.ResponseStream) async throws -> ([Conversation.Event], ModelResponse<String>) {
        var events: [Conversation.Event] = []
        for try await event in stream { events.append(event) }
        return (events, try await stream.result)
    }

    @Test("text deltas, then exactly one .done, last; the transcript and the statistics follow")
    func streamedTurn() async throws {
        let conversation = try RemoteConversation(model: server.model("ok"), instructions: "Be brief.")
        let (events, response) = try await Self.collect(conversation.streamResponse(to: "Hi", options: .init(maximumResponseTokens: 8)))
        #expect(events == [.text("Hello"), .text(" world"), .done(response)])
        #expect(response.content == "Hello world" && response.text == "Hello world" && response.stopReason == .endOfText)
        #expect(response.statistics.promptTokens == 11 && response.statistics.cachedPromptTokens == 4)
        #expect(response.statistics.generatedTokens == 2)
        #expect(response.statistics.timeToFirstToken > .zero)
        #expect(await conversation.transcript == [.system("Be brief."), .user("Hi"), .assistant("Hello world")])
        #expect(await conversation.turnCount == 1)
        let sent = try #require(try server.log("ok").last).json()
        #expect((sent["messages"] as? [[String: Any]])?.count == 2)
        #expect(sent["max_tokens"] as? Int == 8 && sent["model"] as? String == "fake")
        #expect(sent["seed"] as? Int == Int(response.seed), "the response names the seed that was sent")
        // The next turn sends the whole transcript.
        _ = try await conversation.respond(to: "Again")
        let second = try #require(try server.log("ok").last).json()
        #expect((second["messages"] as? [[String: Any]])?.compactMap { $0["content"] as? String }
                == ["Be brief.", "Hi", "Hello world", "Again"])
    }

    @Test("reasoning_content becomes .thinking, kept apart from the answer")
    func thinking() async throws {
        let conversation = try RemoteConversation(model: server.model("thinking"))
        let (events, response) = try await Self.collect(conversation.streamResponse(to: "Capital of France?", thinking: .enabled()))
        #expect(events.prefix(3) == [.thinking("Paris is "), .thinking("the capital."), .text("Paris.")])
        #expect(response.thinking == "Paris is the capital." && response.text == "Paris.")
        #expect(await conversation.transcript.last == .assistant("Paris.", thinking: "Paris is the capital."))
        let sent = try #require(try server.log("thinking").last).json()
        #expect(sent["chat_template_kwargs"] as? [String: Bool] == ["enable_thinking": true])
    }

    @Test("a streamed tool call runs here, its result goes back with the call's id, and the model answers")
    func toolRound() async throws {
        let arguments = Mutex<[String]>([])
        let weather = DynamicTool(name: "get_weather", description: "Weather in a city",
                                  parametersSchema: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#) { json in
            arguments.withLock { $0.append(json) }
            return #"{"sky":"rainy"}"#
        }
        let conversation = try RemoteConversation(model: server.model("tools"), tools: [weather])
        let (events, response) = try await Self.collect(conversation.streamResponse(to: "Weather in Paris?"))
        #expect(arguments.withLock { $0 } == [#"{"city": "Paris"}"#], "the arguments reach the tool as the server wrote them")
        let started = try #require(events.first)
        guard case .toolCallStarted(let call) = started else {
            Issue.record("the first event is \(started)")
            return
        }
        #expect(call.name == "get_weather" && call.modelCallID == "call_x" && call.id == "call-1" && call.round == 1)
        guard case .toolCallFinished(let finished) = events[1] else {
            Issue.record("the second event is \(events[1])")
            return
        }
        #expect(finished.output == #"{"sky":"rainy"}"# && !finished.isError)
        #expect(events.dropFirst(2) == [.text("It is rainy."), .done(response)])
        #expect(response.text == "It is rainy." && response.toolInvocations == [finished])
        #expect(response.statistics.generatedTokens == 4, "the rounds' counts add up")
        let requests = try server.log("tools").map { try $0.json() }
        #expect(requests.count == 2)
        #expect(requests[0]["tool_choice"] as? String == "auto")
        #expect((requests[0]["tools"] as? [[String: Any]])?.count == 1)
        let sentBack = try #require(requests[1]["messages"] as? [[String: Any]])
        #expect(sentBack.map { $0["role"] as? String } == ["user", "assistant", "tool"])
        #expect(sentBack[2]["tool_call_id"] as? String == "call_x" && sentBack[2]["content"] as? String == #"{"sky":"rainy"}"#)
        let transcript = await conversation.transcript
        #expect(transcript.map(\.role) == [.user, .assistant, .tool, .assistant])
        #expect(transcript[1].toolCalls == [ChatMessage.ToolCall(name: "get_weather", arguments: #"{"city": "Paris"}"#, id: "call_x")])
    }

    @Test("the tool-round limit answers the calls without running them and ends with .toolRounds")
    func toolRoundLimit() async throws {
        let runs = Mutex(0)
        let weather = DynamicTool(name: "get_weather", description: "Weather", parametersSchema: #"{"type":"object"}"#) { _ in
            runs.withLock { $0 += 1 }
            return "{}"
        }
        let conversation = try RemoteConversation(model: server.model("tools"), tools: [weather])
        let response = try await conversation.respond(to: "Weather?", toolPolicy: .init(maximumRounds: 0))
        #expect(response.stopReason == .toolRounds && runs.withLock { $0 } == 0)
        #expect(await conversation.transcript.last?.role == .tool)
        #expect(try server.log("tools").count == 1)
    }

    @Test("finish reasons: length is maximumTokens; a stop string the server names is stopSequence")
    func stopReasons() async throws {
        let long = try await RemoteConversation(model: server.model("length")).respond(to: "Count")
        #expect(long.stopReason == .maximumTokens && long.text == "one two")
        let stopped = try await RemoteConversation(model: server.model("stop"))
            .respond(to: "Count", options: .init(stopSequences: ["END"]))
        #expect(stopped.stopReason == .stopSequence && stopped.stopSequence == "END")
    }

    @Test("a server that ignores stream: true and sends one JSON completion is understood")
    func wholeJSONAnswer() async throws {
        let (events, response) = try await Self.collect(RemoteConversation(model: server.model("json")).streamResponse(to: "Hi"))
        #expect(events == [.text("Hello world"), .done(response)])
        #expect(response.statistics.generatedTokens == 2)
    }

    @Test("hostile or broken answers fail with typed errors, and the transcript stays as it was")
    func brokenAnswers() async throws {
        let cases: [(String, (RemoteModel.Error) -> Bool)] = [
            ("midstream", { $0 == .serverError(type: "server_error", message: "the slot was lost") }),
            ("garbage", { if case .invalidResponse(let reason) = $0 { reason.contains("not a chat completion chunk") } else { false } }),
            ("huge", { if case .invalidResponse(let reason) = $0 { reason.contains("1048576 bytes") } else { false } }),
            ("truncated", { if case .invalidResponse(let reason) = $0 { reason.contains("before the answer was complete") } else { false } }),
        ]
        for (mode, matches) in cases {
            let conversation = try RemoteConversation(model: server.model(mode), instructions: "Be brief.")
            do {
                _ = try await conversation.respond(to: "Hi")
                Issue.record("\(mode): no error")
            } catch let error as RemoteModel.Error {
                #expect(matches(error), "\(mode): \(error)")
            }
            #expect(await conversation.transcript == [.system("Be brief.")], "\(mode)")
        }
    }

    @Test("a bad schema, a tool choice naming no tool and a bad option fail before any request")
    func failEarly() async throws {
        let conversation = try RemoteConversation(model: server.model("early"))
        var events = 0
        await #expect(throws: OutputFormat.Error.self) {
            for try await _ in conversation.streamResponse(to: "Hi", format: .jsonSchema("{not json")) { events += 1 }
        }
        await #expect(throws: Conversation.Error.invalidToolChoice(reason: "no tool is named nope")) {
            try await conversation.respond(to: "Hi", toolPolicy: .init(choice: .named("nope")))
        }
        await #expect(throws: LocalModel.Error.self) {
            try await conversation.respond(to: "Hi", options: .init(sampling: .init(topP: 2)))
        }
        #expect(events == 0)
        #expect(try server.log("early").isEmpty)
    }

    @Test("breaking out of the stream closes the connection; the response reports .cancelled; the transcript stays")
    func cancellation() async throws {
        let conversation = try RemoteConversation(model: server.model("trickle"))
        let stream = conversation.streamResponse(to: "Count to a million")
        var texts = 0
        for try await event in stream {
            if case .text = event { texts += 1 }
            if texts == 5 { break }
        }
        let response = try await stream.result
        #expect(response.stopReason == .cancelled)
        #expect(response.text.hasPrefix("....."))
        #expect(try await server.waitForDisconnect("trickle"), "the server did not see the connection close")
        #expect(await conversation.transcript.isEmpty)
    }

    @Test("cancelling the consuming task cancels the request too")
    func taskCancellation() async throws {
        let conversation = try RemoteConversation(model: server.model("trickle"))
        let consumer = Task {
            try await conversation.respond(to: "Count")
        }
        // Cancel once the stream has begun: the server logs the request before it streams.
        for _ in 0..<300 where try server.log("trickle").isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        consumer.cancel()
        let response = try await consumer.value
        #expect(response.stopReason == .cancelled)
        #expect(try await server.waitForDisconnect("trickle"))
    }
}
