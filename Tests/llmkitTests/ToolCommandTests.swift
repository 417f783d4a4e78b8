import Foundation
import Testing

@Suite("llmkit run --tools")
struct ToolCommandTests {
    @Test("a required tool call runs, and --json lists it with its output")
    func requiredCall() throws {
        let output = try CommandRunner.llmkit(["run", "--tools", "calculate,convert_units", "--tool-choice", "calculate",
                                               "--max-tool-rounds", "1", "--chat-template", Templates.path("Qwen-Qwen3-0.6B"),
                                               "-n", "40", "--temperature", "0", "--json", "What is 12 times 7?"])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let calls = try #require(report["tool_calls"] as? [[String: Any]])
        let first = try #require(calls.first)
        #expect(first["name"] as? String == "calculate")
        #expect((first["output"] as? String)?.contains("\"result\"") == true)
        #expect(first["error"] is NSNull)   // every key is present; null when the call succeeded
        #expect(["end_of_text", "maximum_tokens", "tool_rounds"].contains(report["stop_reason"] as? String))
    }

    @Test("tool calls are shown on stderr, the answer alone on stdout")
    func streams() throws {
        let output = try CommandRunner.llmkit(["run", "--tools", "calculate", "--tool-choice", "required", "--max-tool-rounds", "1",
                                               "--chat-template", Templates.path("Qwen-Qwen3-0.6B"), "-n", "80", "--temperature", "0",
                                               "What is 2 plus 2?"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("[call-1] calculate("))
        #expect(!output.stdout.contains("[call-1]"))
    }

    @Test("an unknown tool is a usage error; a template without tools is a runtime error")
    func errors() throws {
        let unknown = try CommandRunner.llmkit(["run", "--tools", "teleport", "x"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown tool 'teleport'"))
        let unsupported = try CommandRunner.llmkit(["run", "--tools", "calculate", "x"])
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr.contains("cannot render tools"))
    }
}
