import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

struct Echo: ConversationTool {
    let name = "echo"
    let description = "Echoes a word"
    struct Arguments: Decodable { var word: String }
    struct Output: Encodable { var echoed: String }
    func call(_ arguments: Arguments) async throws -> Output { Output(echoed: arguments.word) }
}

struct Failing: ConversationTool {
    struct Broken: Error, CustomStringConvertible { var description: String { "the disk is full" } }
    let name = "fail"
    let description = "Always fails"
    struct Arguments: Decodable {}
    func call(_ arguments: Arguments) async throws -> String { throw Broken() }
}

/// Waits until `count` calls are in flight at once; proves that a round's calls run concurrently.
final class Rendezvous: Sendable {
    let inFlight = Atomic<Int>(0)
    let count: Int
    init(count: Int) { self.count = count }

    func arrive() async throws -> String {
        inFlight.add(1, ordering: .sequentiallyConsistent)
        for _ in 0..<500 where inFlight.load(ordering: .sequentiallyConsistent) < count {
            try await Task.sleep(for: .milliseconds(10))
        }
        return inFlight.load(ordering: .sequentiallyConsistent) >= count ? "together" : "alone"
    }
}

@Suite("Tools: checks, errors fed back, concurrency, cancellation")
struct ToolLoopUnitTests {
    @Test("failures become error messages for the model, never exceptions")
    func failuresFedBack() async throws {
        let box = try ToolBox([Echo(), Failing()])
        #expect(await box.run(name: "echo", arguments: #"{"word": "hi"}"#) == (#"{"echoed":"hi"}"#, false))
        let unknown = await box.run(name: "teleport", arguments: "{}")
        #expect(unknown.isError && unknown.output.contains("unknown tool teleport") && unknown.output.contains("echo, fail"))
        let bad = await box.run(name: "echo", arguments: #"{"wrd": 1}"#)
        #expect(bad.isError && bad.output.contains("do not match the tool's parameters"))
        let thrown = await box.run(name: "fail", arguments: "{}")
        #expect(thrown.isError && thrown.output.contains("the disk is full"))
        #expect(try JSONSerialization.jsonObject(with: Data(thrown.output.utf8)) is [String: String])
    }

    @Test("bad tool definitions fail at creation")
    func badDefinitions() {
        #expect(throws: Conversation.Error.self) { try ToolBox([Echo(), Echo()]) }
        #expect(throws: Conversation.Error.self) {
            try ToolBox([DynamicTool(name: "has space", description: "", parametersSchema: "{}") { _ in "" }])
        }
        #expect(throws: Conversation.Error.self) {
            try ToolBox([DynamicTool(name: "x", description: "", parametersSchema: "{not json") { _ in "" }])
        }
        #expect(throws: Conversation.Error.invalidToolChoice(reason: "no tool is named nope")) {
            try ToolBox([Echo()]).offer(.named("nope"))
        }
    }

    @Test("the calls of one round run concurrently")
    func concurrentCalls() async throws {
        let rendezvous = Rendezvous(count: 3)
        let tool = DynamicTool(name: "meet", description: "Waits for the others", parametersSchema: #"{"type":"object"}"#) { _ in
            try await rendezvous.arrive()
        }
        let model = try await TestModel.vocabulary()
        let conversation = try Conversation(model: model, tools: [tool], configuration: .init(chatTemplate: TestTemplates.source("Qwen-Qwen3-0.6B")))
        let calls = (1...3).map {
            ToolInvocation(id: "call-\($0)", modelCallID: nil, name: "meet", arguments: "{}", round: 1, phase: .answer, output: nil, isError: false)
        }
        let finished = await conversation.toolBox.run(calls) { _ in }
        #expect(finished.map { $0.output } == ["together", "together", "together"])
    }

    @Test("cancelling a turn cancels its running tools and leaves the transcript as it was")
    func cancellation() async throws {
        let cancelled = CancellationFlag(), started = CancellationFlag()
        let slow = DynamicTool(name: "slow", description: "Takes long", parametersSchema: #"{"type":"object"}"#) { _ in
            started.raise()
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.raise()
                throw error
            }
            return "done"
        }
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model, tools: [slow], configuration: .init(chatTemplate: TestTemplates.source("Qwen-Qwen3-0.6B")))
        let stream = conversation.streamResponse(to: "Go.", options: .init(maximumResponseTokens: 40, sampling: .greedy), toolPolicy: .init(choice: .required))
        let consumer = Task {
            for try await event in stream {
                if case .toolCallStarted = event { break }
            }
        }
        try await consumer.value
        for _ in 0..<200 where !started.isRaised { try await Task.sleep(for: .milliseconds(10)) }
        let response = try await stream.result
        #expect(response.stopReason == .cancelled)
        let toolSawCancellation = cancelled.isRaised
        #expect(toolSawCancellation)
        #expect(await conversation.transcript.isEmpty)
        #expect(await conversation.turnCount == 0)
    }
}
