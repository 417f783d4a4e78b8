import Foundation
import Testing
@testable import LocalLLMKit

@Suite("Conversations started from a stored transcript")
struct ConversationTranscriptTests {
    static let greedy = CompletionOptions.greedy(maximumResponseTokens: 16)

    @Test("a transcript stored as JSON continues exactly like the conversation it came from")
    func continues() async throws {
        let model = try await TestModel.load()
        let original = try Conversation(model: model, instructions: "Be brief.")
        _ = try await original.respond(to: "Hello there.", options: Self.greedy)
        _ = try await original.respond(to: "Tell me about gardens.", options: Self.greedy)
        let stored = try JSONEncoder().encode(await original.transcript)

        let restored = try Conversation(model: model, transcript: try JSONDecoder().decode([ChatMessage].self, from: stored))
        #expect(restored.instructions == "Be brief.")
        #expect(await restored.turnCount == 2)
        #expect(await restored.transcript == original.transcript)

        let expected = try await original.respond(to: "What grows in shade?", options: Self.greedy)
        let answer = try await restored.respond(to: "What grows in shade?", options: Self.greedy)
        #expect(answer.text == expected.text)
        #expect(answer.statistics.promptTokens == expected.statistics.promptTokens)
        // The model's cache holds the same history (the original's turn), so it is reused.
        #expect(answer.statistics.cachedPromptTokens > 0)
    }

    @Test("a transcript that no conversation could have is refused, naming the message",
          arguments: [
            ([.user("Hi"), .system("Be brief.")], 1, "first"),
            ([.user("Hi"), .tool("42", callID: "call-1")], 1, "follow an assistant message"),
            ([.user("Hi"),
              ChatMessage(role: .assistant, content: "", toolCalls: [.init(name: "calculate", arguments: "{}", id: "a")]),
              .tool("42", callID: "b")], 2, "call b"),
          ] as [([ChatMessage], Int, String)])
    func refused(transcript: [ChatMessage], index: Int, words: String) async throws {
        let model = try await TestModel.load()
        #expect {
            _ = try Conversation(model: model, transcript: transcript)
        } throws: { error in
            guard case Conversation.Error.invalidTranscript(let reported, let reason) = error else { return false }
            return reported == index && reason.contains(words)
        }
    }
}
