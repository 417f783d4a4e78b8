import Foundation
import LocalLLMKit
import LocalLLMKitTools
import Testing

@Suite("The tool loop through the real model", .timeLimit(.minutes(3)))
struct ToolLoopTests {
    static func qwen3() throws -> String {
        let prefix = ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local"
        return try String(contentsOfFile: prefix + "/share/llmkit/templates/Qwen-Qwen3-0.6B.jinja", encoding: .utf8)
    }

    @Test("tool choice required: the grammar forces a valid call, the loop runs it and ends with an answer")
    func calculate() async throws {
        let model = try await LocalModel.load(from: ReferenceModel.url(), configuration: .init(contextLength: 2048))
        let conversation = try Conversation(model: model, tools: [CalculatorTool(), UnitConversionTool()],
                                            configuration: .init(chatTemplate: Self.qwen3()))
        var started: [ToolInvocation] = [], finished: [ToolInvocation] = []
        let stream = conversation.streamResponse(to: "What is 12 times 7?", options: .init(maximumResponseTokens: 64, sampling: .greedy), toolPolicy: .init(choice: .named("calculate"), maximumRounds: 2))
        for try await event in stream {
            if case .toolCallStarted(let call) = event { started.append(call) }
            if case .toolCallFinished(let call) = event { finished.append(call) }
        }
        let response = try await stream.result
        #expect(!started.isEmpty)
        // Calls of one round run concurrently: they finish in any order.
        #expect(started.map(\.id).sorted() == finished.map(\.id).sorted())
        #expect(response.toolInvocations.map(\.id) == started.map(\.id))
        let first = try #require(response.toolInvocations.first)
        #expect(first.name == "calculate")
        #expect(first.round == 1)
        let arguments = try #require(try JSONSerialization.jsonObject(with: Data(first.arguments.utf8)) as? [String: Any])
        #expect(["add", "subtract", "multiply", "divide", "power"].contains(arguments["operation"] as? String))
        #expect(arguments["a"] is Double || arguments["a"] is Int)
        #expect(first.isError == false || first.output?.contains("division by zero") == true)
        #expect([StopReason.endOfText, .maximumTokens, .toolRounds].contains(response.stopReason))

        // The transcript: user, assistant with the call, tool result with the same id, and the answer.
        let transcript = await conversation.transcript
        #expect(transcript.first?.role == .user)
        let assistant = try #require(transcript.first { !$0.toolCalls.isEmpty })
        let callID = try #require(assistant.toolCalls.first?.id)
        let result = try #require(transcript.first { $0.role == .tool })
        #expect(result.toolCallID == callID)
        #expect(result.content == first.output)
        #expect(result.name == "calculate")
        #expect(transcript.last?.role == .assistant || transcript.last?.role == .tool)
    }

    @Test("a model that calls tools decides to call one itself, with arguments from the question, and answers with its result")
    func modelDecides() async throws {
        let model = try await LocalModel.load(from: ReferenceModel.toolCallingURL(), configuration: .init(contextLength: 2048))
        let weather = DynamicTool(name: "get_weather", description: "Get the current weather in a city.",
                                  parametersSchema: #"{"type":"object","properties":{"city":{"type":"string","description":"The city name"}},"required":["city"]}"#) { arguments in
            arguments.contains("Paris") ? #"{"temperature_celsius": 17, "sky": "light rain"}"# : #"{"error": "unknown city"}"#
        }
        // Qwen2.5-Coder's own template, tool choice auto: nothing forces the call.
        let conversation = try Conversation(model: model, tools: [weather])
        let response = try await conversation.respond(to: "What is the weather like in Paris right now?",
                                                      options: .init(maximumResponseTokens: 128, sampling: .greedy))
        let call = try #require(response.toolInvocations.first, "no tool call: \(response.rawText)")
        #expect(call.name == "get_weather" && call.isError == false)
        #expect(call.arguments.contains("Paris"), "\(call.arguments)")
        #expect(response.text.contains("17") || response.text.lowercased().contains("rain"), "\(response.text)")
        #expect(response.stopReason == .endOfText)
    }
}
