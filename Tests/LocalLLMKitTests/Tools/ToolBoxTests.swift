import Foundation
import Testing
@testable import LocalLLMKit

@Suite("Tool box")
struct ToolBoxTests {
    @Test("a DynamicTool receives the model's JSON exactly as written; invalid JSON is an error for the model")
    func rawArguments() async throws {
        let received = Promise<String>()
        let tool = DynamicTool(name: "echo", description: "Echo", parametersSchema: #"{"type": "object"}"#) { json in
            received.settle(.success(json))
            return "ok"
        }
        let box = try ToolBox([tool])
        let arguments = #"{"z": 1.0, "a": 12345678901234567890}"#
        let (output, isError) = await box.run(name: "echo", arguments: arguments)
        #expect(output == "ok" && !isError)
        #expect(try await received.value == arguments)

        let (bad, badIsError) = await box.run(name: "echo", arguments: #"{"z": "#)
        #expect(badIsError && bad.contains("do not match"))
    }

    @Test("requiring a call with no tools is an error; auto without tools offers none")
    func requiredWithoutTools() throws {
        let box = try ToolBox([])
        #expect(throws: LLMKitError.self) { try box.offer(.required) }
        #expect(throws: LLMKitError.self) { try box.offer(.named("search")) }
        #expect(try box.offer(.auto).choice == "none")
    }
}
