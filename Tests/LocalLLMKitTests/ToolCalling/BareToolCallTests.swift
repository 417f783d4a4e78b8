import Testing
@testable import LocalLLMKit

/// A tool call written without its template's markup is recognized only when the whole answer
/// is exactly such a call to a known tool.
@Suite("Tool calls without markup")
struct BareToolCallTests {
    static let names: Set<String> = ["get_weather"]

    @Test("a bare or fenced call to a known tool is a call, with its arguments as JSON text")
    func recognized() throws {
        for text in [#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
                     "\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\n",
                     #"  {"arguments": {"city": "Paris"}, "name": "get_weather"}  "#,
                     #"{"name": "get_weather", "parameters": {"city": "Paris"}}"#] {
            let call = try #require(BareToolCall.parse(text, toolNames: Self.names), "\(text)")
            #expect(call.name == "get_weather" && call.arguments == #"{"city":"Paris"}"#)
        }
    }

    @Test("anything else stays text: unknown tools, extra keys, text around it, arrays, broken JSON")
    func rejected() {
        for text in [#"{"name": "delete_files", "arguments": {}}"#,
                     #"{"name": "get_weather", "arguments": {"city": "Paris"}, "id": 1}"#,
                     #"Sure: {"name": "get_weather", "arguments": {"city": "Paris"}}"#,
                     #"[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
                     #"{"name": "get_weather", "arguments": "Paris"}"#,
                     #"{"name": "get_weather", "arguments": {"city": "Paris"}"#,
                     "The weather in Paris is mild.", ""] {
            #expect(BareToolCall.parse(text, toolNames: Self.names) == nil, "\(text)")
        }
    }
}
