import Foundation
import LocalLLMKit
import Synchronization
import Testing
@testable import LocalLLMKitServer

/// LocalLLMKit's own client, `RemoteConversation`, against `ModelServer`: the same events and
/// responses as a local conversation, a real tool round, structured output, cancellation that
/// frees the server's sequence, and the API key.
@Suite(.serialized) struct RemoteClientTests {
    private struct Capital: Decodable, Sendable, StructuredOutput {
        var country: String
        var capital: String
    }

    @Test func aToolRoundAndAStructuredAnswerThroughTheServer() async throws {
        let model = try await ServerHarness.toolModel()
        let server = try ServerHarness.serve(["qwen": model], .init(apiKey: "k-1"))
        let remote = try RemoteModel(baseURL: server.baseURL, model: "qwen", apiKey: "k-1")
        #expect(try await remote.availableModels() == ["qwen"])
        let calls = Mutex<[String]>([])
        let weather = DynamicTool(name: "get_weather", description: "Get the current weather in a city.",
                                  parametersSchema: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#) { arguments in
            calls.withLock { $0.append(arguments) }
            return #"{"temperature_celsius": 17, "sky": "light rain"}"#
        }
        let conversation = try RemoteConversation(model: remote, tools: [weather])
        var events: [Conversation.Event] = []
        let stream = conversation.streamResponse(to: "What is the weather like in Paris right now?",
                                                 options: .init(maximumResponseTokens: 128, sampling: .greedy),
                                                 toolPolicy: .init(choice: .required, maximumRounds: 1))
        for try await event in stream { events.append(event) }
        let response = try await stream.result
        let call = try #require(response.toolInvocations.first, "no tool call: \(response.rawText)")
        #expect(call.name == "get_weather" && call.arguments.contains("Paris"), "\(call)")
        #expect(calls.withLock { $0.count } == 1)
        #expect(events.last == .done(response))
        #expect(events.contains { if case .toolCallFinished = $0 { true } else { false } })

        let structured = try await RemoteConversation(model: remote)
            .respond(to: "What is the capital of France?", generating: Capital.self,
                     options: .init(maximumResponseTokens: 64, sampling: .greedy))
        #expect(structured.content.capital.contains("Paris"), "\(structured.text)")
        await server.stop()
    }

    @Test func logProbabilitiesComeThroughTheServerAsALocalConversationMeasuresThem() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let remote = try RemoteModel(baseURL: server.baseURL, model: "smollm")
        var options = CompletionOptions(maximumResponseTokens: 8, sampling: .greedy)
        options.logProbabilityAlternatives = 3
        let prompt = "Name a color."
        // The prompt's cache is filled first, so that both runs take the prompt from it alike.
        _ = try await Conversation(model: model).respond(to: prompt, options: .init(maximumResponseTokens: 1))
        let local = try await Conversation(model: model).respond(to: prompt, options: options)
        let stream = try RemoteConversation(model: remote).streamResponse(to: prompt, options: options)
        var streamed: [TokenLogProbability] = []
        var textBeforeEntries = false
        for try await event in stream {
            switch event {
            case .logProbability(let entry): streamed.append(entry)
            case .text: textBeforeEntries = textBeforeEntries || streamed.isEmpty
            default: break
            }
        }
        let served = try await stream.result
        #expect(served.text == local.text)
        #expect(!local.logProbabilities.isEmpty && served.logProbabilities.count == local.logProbabilities.count)
        #expect(streamed.map(\.chosen) == served.logProbabilities.map(\.chosen), "the stream's entries are the response's")
        #expect(!textBeforeEntries, "text arrived before its token's entry")
        for (mine, theirs) in zip(served.logProbabilities, local.logProbabilities) {
            #expect(mine.chosen.token == theirs.chosen.token && mine.chosen.bytes == theirs.chosen.bytes)
            #expect(abs(mine.chosen.logProbability - theirs.chosen.logProbability) < 1e-4)
            #expect(mine.alternatives.map(\.token) == theirs.alternatives.map(\.token) && mine.alternatives.count == 3)
        }
        await server.stop()
    }

    @Test func cancellingTheClientFreesTheServersSequence() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1, context: 4096)
        let server = try ServerHarness.serve(["smollm": model])
        let conversation = try RemoteConversation(model: RemoteModel(baseURL: server.baseURL, model: "smollm"))
        var deltas = 0
        let stream = conversation.streamResponse(to: "Write a very long story about the sea.",
                                                 options: .init(maximumResponseTokens: 3000, sampling: .greedy))
        for try await event in stream {
            if case .text = event { deltas += 1 }
            if deltas == 5 { break }
        }
        #expect(try await stream.result.stopReason == .cancelled)
        let deadline = ContinuousClock.now + .seconds(30)
        while await model.busySequences() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await model.busySequences() == 0)
        await server.stop()
    }

    @Test func aWrongKeyIsUnauthorized() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model], .init(apiKey: "right"))
        let remote = try RemoteModel(baseURL: server.baseURL, model: "smollm", apiKey: "wrong")
        await #expect {
            _ = try await RemoteConversation(model: remote).respond(to: "Hi")
        } throws: { error in
            if case RemoteModel.Error.unauthorized = error { true } else { false }
        }
        await server.stop()
    }
}
