import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Tool box")
struct ToolBoxTests {
    @Test("a DynamicTool receives the model's JSON exactly as written; invalid JSON is an error for the model")
    func rawArguments() async throws {
        let received = Mutex<String?>(nil)
        let tool = DynamicTool(name: "echo", description: "Echo", parametersSchema: #"{"type": "object"}"#) { json in
            received.withLock { $0 = json }
            return "ok"
        }
        let box = try ToolBox([tool])
        let arguments = #"{"z": 1.0, "a": 12345678901234567890}"#
        let (output, isError) = await box.run(name: "echo", arguments: arguments)
        #expect(output == "ok" && !isError)
        #expect(received.withLock { $0 } == arguments)

        let (bad, badIsError) = await box.run(name: "echo", arguments: #"{"z": "#)
        #expect(badIsError && bad.contains("do not match"))
    }

    @Test("requiring a call with no tools is an error; auto without tools offers none")
    func requiredWithoutTools() throws {
        let box = try ToolBox([])
        #expect(throws: Conversation.Error.self) { try box.offer(.required) }
        #expect(throws: Conversation.Error.self) { try box.offer(.named("search")) }
        #expect(try box.offer(.auto).choice == "none")
    }
}
