import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Chat templates through llama.cpp's chat engine")
struct ChatTemplateTests {
    static let conversation: [ChatMessage] = [
        .system("You are terse."), .user("Hi!"), .assistant("Hello.", thinking: "Greet back."), .user("What is 2+2?"),
    ]

    /// A family, the markers its prompt must contain, and how it must end.
    struct Family: Sendable, CustomStringConvertible {
        let template: String
        let markers: [String]
        let generationPrompt: String
        var description: String { template }
    }

    static let families = [
        Family(template: "meta-llama-Llama-3.1-8B-Instruct",
               markers: ["<|start_header_id|>system<|end_header_id|>", "<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>"],
               generationPrompt: "<|start_header_id|>assistant<|end_header_id|>\n\n"),
        Family(template: "Qwen-Qwen3-0.6B", markers: ["<|im_start|>system\nYou are terse.<|im_end|>", "<|im_start|>user\nHi!<|im_end|>"],
               generationPrompt: "<|im_start|>assistant\n"),
        Family(template: "google-gemma-2-2b-it",
               markers: ["<start_of_turn>user\n", "Hi!<end_of_turn>", "<start_of_turn>model\nHello.<end_of_turn>"],
               generationPrompt: "<start_of_turn>model\n"),
        Family(template: "mistralai-Mistral-Nemo-Instruct-2407", markers: ["[INST]Hi![/INST]Hello.", "What is 2+2?[/INST]"],
               generationPrompt: "[/INST]"),
        Family(template: "microsoft-Phi-3.5-mini-instruct", markers: ["<|system|>\nYou are terse.<|end|>", "<|user|>\nHi!<|end|>"],
               generationPrompt: "<|assistant|>\n"),
        Family(template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B",
               markers: ["<｜User｜>Hi!", "<｜Assistant｜>Hello.<｜end▁of▁sentence｜>"],
               generationPrompt: "<｜Assistant｜><think>\n"),
        Family(template: "openai-gpt-oss-120b", markers: ["<|start|>user<|message|>Hi!<|end|>", "<|start|>developer<|message|>"],
               generationPrompt: "<|start|>assistant"),
        Family(template: "HuggingFaceTB-SmolLM3-3B", markers: ["<|im_start|>user\nHi!<|im_end|>", "You are terse."],
               generationPrompt: "<|im_start|>assistant\n"),
    ]

    @Test("real templates render role markers and the generation prompt", arguments: families)
    func family(_ family: Family) async throws {
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model, override: TestTemplates.source(family.template))
        #expect(template.source == .override)
        let prompt = try template.render(Self.conversation).text
        for marker in family.markers {
            #expect(prompt.contains(marker), "\(family.template): missing \(marker.debugDescription) in \(prompt.debugDescription)")
        }
        #expect(prompt.contains("What is 2+2?"))
        let withoutGenerationPrompt = try template.render(Self.conversation, addGenerationPrompt: false).text
        #expect(prompt.count > withoutGenerationPrompt.count || family.template.contains("Mistral"))
        let lastUser = try #require(prompt.range(of: "What is 2+2?", options: .backwards))
        #expect(prompt[lastUser.upperBound...].contains(family.generationPrompt.trimmingCharacters(in: .newlines)),
                "\(family.template) ends with \(prompt.suffix(60).debugDescription)")
    }

    @Test("thinking on and off changes the prompt where the template supports it")
    func thinkingSwitch() async throws {
        let model = try await TestModel.vocabulary()
        let qwen3 = try ChatTemplate(model: model, override: TestTemplates.source("Qwen-Qwen3-0.6B"))
        #expect(qwen3.supportsThinking)
        let off = try qwen3.render(Self.conversation, enableThinking: false).text
        let on = try qwen3.render(Self.conversation, enableThinking: true).text
        #expect(off.hasSuffix("<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(on.hasSuffix("<|im_start|>assistant\n"))
        let smol = try ChatTemplate(model: model, override: TestTemplates.source("HuggingFaceTB-SmolLM3-3B"))
        #expect(try smol.render(Self.conversation, enableThinking: true).text.contains("/think"))
        #expect(try smol.render(Self.conversation, enableThinking: false).text.contains("/no_think"))
        let gemma = try ChatTemplate(model: model, override: TestTemplates.source("google-gemma-2-2b-it"))
        #expect(!gemma.supportsThinking)
        #expect(try gemma.render(Self.conversation, enableThinking: true).text == (try gemma.render(Self.conversation).text))
    }

    @Test("the thinking tags and the parser come from the template")
    func parser() async throws {
        let model = try await TestModel.vocabulary()
        let qwen = try ChatTemplate(model: model, override: TestTemplates.source("Qwen-Qwen3-0.6B"))
        let rendered = try qwen.render([.user("Hi")], enableThinking: true)
        #expect(rendered.thinkingStartTag == "<think>")
        #expect(rendered.thinkingEndTags == ["</think>"])
        let final = try rendered.render.parse("<think>Let me see.</think>The answer is 4.", isPartial: false)
        #expect(final.reasoningContent == "Let me see.")
        #expect(final.content == "The answer is 4.")
        let partial = try rendered.render.parse("<think>Let me", isPartial: true)
        #expect(partial.reasoningContent == "Let me")
        #expect(partial.content.isEmpty)
        // DeepSeek R1's prompt already opens the thinking block.
        let r1 = try ChatTemplate(model: model, override: TestTemplates.source("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B"))
        let opened = try r1.render([.user("Hi")], enableThinking: true).render.parse("Hmm.</think>Four.", isPartial: false)
        #expect(opened.reasoningContent.trimmingCharacters(in: .whitespacesAndNewlines) == "Hmm.")
        #expect(opened.content == "Four.")
    }

    @Test("precedence: override, embedded, built-in by architecture, ChatML")
    func precedence() async throws {
        let model = try await TestModel.vocabulary()
        #expect(try ChatTemplate(model: model).source == .builtin("gemma"))
        #expect(try ChatTemplate(model: model, override: "chatml").source == .chatml)
        #expect(try ChatTemplate(model: model, override: "llama3").source == .builtin("llama3"))
        #expect(try ChatTemplate(model: model, override: "{{ messages[0].content }}").source == .override)
        let builtin = try ChatTemplate(model: model).render([.user("Hello")]).text
        #expect(builtin == "<start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n")
        let chatml = try ChatTemplate(model: model, override: "chatml").render([.user("Hello")]).text
        #expect(chatml == "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n")

        let directory = try TemporaryDirectory()
        let copy = directory.file("embedded.gguf")
        try GGUFRewriter.copy(
            TestModel.url(), to: copy, settingString: "tokenizer.chat_template",
            to: "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}")
        let embeddedModel = try await LocalModel.load(from: copy, configuration: .init(vocabularyOnly: true))
        let embedded = try ChatTemplate(model: embeddedModel)
        #expect(embedded.source == .embedded)
        #expect(try embedded.render([.user("Hello")]).text == "[user] Hello\n[assistant] ")
    }

    @Test("a broken template gives a typed error naming the problem")
    func brokenTemplate() async throws {
        let model = try await TestModel.vocabulary()
        #expect(throws: ChatTemplate.Error.self) { try ChatTemplate(model: model, override: "{% for m in messages %}{{ m.content }") }
        let directory = try TemporaryDirectory()
        #expect {
            try ChatTemplate(model: model, overrideFile: directory.file("missing.jinja"))
        } throws: { error in
            guard case ChatTemplate.Error.failed(let reason) = error else { return false }
            return reason.contains("missing.jinja")
        }
        #expect(throws: ChatTemplate.Error.self) {
            try ChatTemplate(model: model, override: "{{ raise_exception('no system role') }}").render([.user("x")])
        }
    }

    @Test("every template shipped with llama.cpp renders, with thinking on and off")
    func allTemplates() async throws {
        let model = try await TestModel.vocabulary()
        let names = try TestTemplates.all()
        #expect(names.count >= 60)
        var failures: [String] = []
        for name in names {
            for thinking in [false, true] {
                do {
                    let template = try ChatTemplate(model: model, override: TestTemplates.source(name))
                    let prompt = try template.render(Self.conversation, enableThinking: thinking).text
                    if !prompt.contains("What is 2+2?") { failures.append("\(name) (thinking \(thinking)): message missing") }
                } catch {
                    failures.append("\(name) (thinking \(thinking)): \(error.localizedDescription)")
                }
            }
        }
        #expect(failures.isEmpty, "templates that fail to render:\n\(failures.joined(separator: "\n"))")
    }
}

extension ChatTemplateTests {
    @Test("a prompt-only render gives the full render's prompt for every shipped template, and skips the parser's analysis where llama.cpp has no handler of its own")
    func promptOnlyRenders() async throws {
        let model = try await TestModel.vocabulary()
        var mismatches: [String] = []
        var shortcuts = 0
        for name in try TestTemplates.all() {
            let template = try ChatTemplate(model: model, override: TestTemplates.source(name))
            for tools in [false, true] where !tools || template.supportsToolCalls {
                for thinking in [false, true] {
                    let request = ChatRenderRequest(messages: Self.conversation, addGenerationPrompt: true, enableThinking: thinking,
                                                    useJinja: true, arguments: [:],
                                                    tools: tools ? [ToolCallParserTests.weather] : [], toolChoice: "auto")
                    let renders = try ChatRenderHandle.render([request, request.forPromptOnly()], with: template.handle)
                    let full = try renders[0].get().describe(), promptOnly = try renders[1].get().describe()
                    if full.prompt != promptOnly.prompt { mismatches.append("\(name) (tools \(tools), thinking \(thinking))") }
                    // The parser of a direct render takes plain text: no thinking, no tool-call grammar.
                    if full.supportsThinking != promptOnly.supportsThinking || full.grammar != promptOnly.grammar { shortcuts += 1 }
                }
            }
        }
        #expect(mismatches.isEmpty, "prompt-only renders that differ:\n\(mismatches.joined(separator: "\n"))")
        #expect(shortcuts >= 50, "only \(shortcuts) renders skipped the analysis")

        // Qwen3 goes through the analysis: its prompt-only render skips it. Ministral has a handler
        // that moves thinking into the content: its prompt-only render keeps that.
        let qwen = try ChatTemplate(model: model, override: TestTemplates.source("Qwen-Qwen3-0.6B"))
        let request = ChatRenderRequest(messages: Self.conversation, addGenerationPrompt: true, enableThinking: true,
                                        useJinja: true, arguments: [:])
        let qwenRenders = try ChatRenderHandle.render([request, request.forPromptOnly()], with: qwen.handle)
        #expect(try qwenRenders[0].get().describe().supportsThinking)
        #expect(try !qwenRenders[1].get().describe().supportsThinking)
        let ministral = try ChatTemplate(model: model, override: TestTemplates.source("mistralai-Ministral-3-14B-Reasoning-2512"))
        let ministralRender = try ChatRenderHandle.render([request.forPromptOnly()], with: ministral.handle)[0].get()
        #expect(try ministralRender.describe().prompt.contains("[THINK]Greet back.[/THINK]Hello."))
    }
}
