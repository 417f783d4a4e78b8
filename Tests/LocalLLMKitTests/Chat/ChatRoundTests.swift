import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("A chat round without a conversation")
struct ChatRoundTests {
    @Test("a round answers a whole chat as a conversation's reply does, and keeps nothing")
    func replyMatchesConversation() async throws {
        let model = try await TestModel.load()
        let messages: [ChatMessage] = [.user("Name a colour."), .assistant("Blue."), .user("And a fruit?")]
        let options = CompletionOptions.greedy(maximumResponseTokens: 12)
        // Without the cache, both evaluate the whole prompt in one batch: the same logits, the
        // same greedy text (a prompt partly found in the cache is evaluated in other batches,
        // which can move a close greedy choice).
        let conversation = try Conversation(model: model, instructions: "Answer in one word.",
                                            configuration: .init(reusesPromptCache: false))
        let expected = try await conversation.respond(to: messages, options: options)
        let fresh = try ChatRound(model: model, template: conversation.template, tools: [], reusesPromptCache: false)
        let answer = try await fresh.streamResponse(to: messages, instructions: "Answer in one word.", options: options).result
        #expect(!expected.text.isEmpty)
        #expect(answer.text == expected.text)
        #expect(answer.statistics.generatedTokens == expected.statistics.generatedTokens)
        // A round is a value; the cache is the model's: the next round finds this prompt there.
        let round = try ChatRound(model: model, template: conversation.template, tools: [])
        let again = try await round.streamResponse(to: messages, instructions: "Answer in one word.", options: options).result
        #expect(again.statistics.evaluatedPromptTokens < again.statistics.promptTokens)
        // The prompt is the one the template renders, with the instructions first.
        let prompt = try await round.replyPrompt(for: messages, instructions: "Answer in one word.")
        let rendered = try conversation.template.render([.system("Answer in one word.")] + messages, addGenerationPrompt: true)
        #expect(prompt == rendered.text)
        #expect(await conversation.transcript == [.system("Answer in one word.")])
    }

    @Test("tools on a template that cannot render them are refused when the round is made")
    func toolsNeedATemplateThatCallsThem() async throws {
        let model = try await TestModel.load()
        let template = try ChatTemplate(model: model)
        try #require(!template.supportsToolCalls)
        let tool = DynamicTool(name: "lookup", description: "Looks a word up",
                               parametersSchema: #"{"type":"object","properties":{"word":{"type":"string"}}}"#) { _ in "" }
        #expect(throws: ChatTemplate.Error.self) { try ChatRound(model: model, template: template, tools: [tool]) }
        #expect(throws: Conversation.Error.self) {
            try ChatRound(model: model, template: template, tools: [DynamicTool(name: "bad name", description: "", parametersSchema: "{}") { _ in "" }])
        }
    }
}
