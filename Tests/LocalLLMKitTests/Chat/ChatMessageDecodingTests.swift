import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("OpenAI-style messages")
struct ChatMessageDecodingTests {
    @Test("an assistant tool-call message may leave out content, or set it to null")
    func missingContent() throws {
        for json in [
            #"{"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}"#,
            #"{"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": {}}}]}"#,
        ] {
            let message = try JSONDecoder().decode(ChatMessage.self, from: Data(json.utf8))
            #expect(message.content.isEmpty)
            #expect(message.toolCalls.map(\.name) == ["f"])
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ChatMessage.self, from: Data(#"{"role": "user", "content": 5}"#.utf8))
        }
    }
}
