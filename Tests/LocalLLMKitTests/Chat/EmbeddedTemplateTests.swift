import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("A model's embedded chat template")
struct EmbeddedTemplateTests {
    @Test("Hardening #16d: an embedded template that cannot be used is replaced visibly, with the reason")
    func brokenEmbeddedTemplate() async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("broken.gguf")
        try GGUFRewriter.copy(TestModel.url(), to: copy, settingString: "tokenizer.chat_template",
                              to: "{% for m in messages %}{{ m.content }")
        let model = try await LocalModel.load(from: copy, configuration: .init(contextLength: 256))
        let template = try ChatTemplate(model: model)
        #expect(template.source == .builtin("gemma"))
        guard case .failed(let reason)? = template.embeddedTemplateError else {
            Issue.record("expected the parse error, got \(String(describing: template.embeddedTemplateError))")
            return
        }
        #expect(!reason.isEmpty)
        // A conversation with that model uses the replacement, and says so.
        let conversation = try Conversation(model: model)
        #expect(conversation.template.embeddedTemplateError == template.embeddedTemplateError)
        let reply = try await conversation.respond(to: "Hi", options: .greedy(maximumResponseTokens: 2))
        #expect(reply.statistics.generatedTokens > 0)
        // An override is not a replacement.
        #expect(try ChatTemplate(model: model, override: "chatml").embeddedTemplateError == nil)
    }

    @Test("Hardening #16d: a working embedded template, or none, records no error")
    func workingTemplates() async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("fine.gguf")
        try GGUFRewriter.copy(TestModel.url(), to: copy, settingString: "tokenizer.chat_template", to: "{{ messages[0].content }}")
        let fine = try await LocalModel.load(from: copy, configuration: .init(vocabularyOnly: true))
        #expect(try ChatTemplate(model: fine).embeddedTemplateError == nil)
        #expect(try ChatTemplate(model: fine).source == .embedded)
        #expect(try ChatTemplate(model: await TestModel.vocabulary()).embeddedTemplateError == nil)
    }
}
