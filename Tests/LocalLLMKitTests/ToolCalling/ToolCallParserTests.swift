import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Tool calls in each family's native format")
struct ToolCallParserTests {
    static let weather = OrderedJSON.object([
        ("type", .string("function")),
        ("function", .object([
            ("name", .string("get_weather")), ("description", .string("Current weather for a city")),
            ("parameters", try! OrderedJSONParser.parse(#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#)),
        ])),
    ])

    static let conversation: [ChatMessage] = [.system("You help with the weather."), .user("Weather in Seoul?")]

    /// A family: its template, where the model's call starts in the rendered transcript
    /// (when the rendering differs before it), and the end-of-turn text the model emits as
    /// an end-of-generation token (so it never reaches the output).
    struct Family: Sendable, CustomStringConvertible {
        let template: String
        var start: String? = nil
        var endOfTurn: String
        /// DeepSeek V3.1's template leaves describing tools to the caller.
        var describesTools = true
        var description: String { template }
    }

    static let families = [
        Family(template: "Qwen-Qwen3-0.6B", endOfTurn: "<|im_end|>\n"),
        Family(template: "NousResearch-Hermes-3-Llama-3.1-8B-tool_use", endOfTurn: "<|im_end|>\n"),
        Family(template: "meta-llama-Llama-3.1-8B-Instruct", endOfTurn: "<|eot_id|>"),
        Family(template: "mistralai-Mistral-Nemo-Instruct-2407", start: "[TOOL_CALLS]", endOfTurn: "<eos>"),
        Family(template: "openai-gpt-oss-120b", endOfTurn: ""),
        Family(template: "deepseek-ai-DeepSeek-V3.1", endOfTurn: "<｜end▁of▁sentence｜>", describesTools: false),
        Family(template: "google-gemma-4-31B-it", start: "<|tool_call>", endOfTurn: "<|tool_response>"),
        Family(template: "ibm-granite-granite-4.0", endOfTurn: "<|end_of_text|>\n"),
        Family(template: "Kimi-K2-Instruct", endOfTurn: "<|im_end|>"),
    ]

    /// The model-style output of a call: the assistant turn of a rendered transcript,
    /// after the generation prompt, without its end-of-turn marker.
    static func modelOutput(_ family: Family, template: ChatTemplate, prompt: ChatTemplate.RenderedPrompt) throws -> String {
        let call = ChatMessage(role: .assistant, content: "",
                               toolCalls: [.init(name: "get_weather", arguments: #"{"city":"Seoul"}"#, id: "abc123def")])
        let full = try template.render(conversation + [call], addGenerationPrompt: false,
                                       tools: [weather], toolChoice: "auto").text
        var output: Substring
        if let start = family.start, let range = full.range(of: start, options: .backwards) {
            output = full[range.lowerBound...]
        } else {
            #expect(full.hasPrefix(prompt.text), "\(family.template): the transcript does not extend the prompt")
            output = full.dropFirst(prompt.text.count)
        }
        if !family.endOfTurn.isEmpty, output.hasSuffix(family.endOfTurn) { output = output.dropLast(family.endOfTurn.count) }
        return String(output)
    }

    @Test("a rendered call parses back, whole and chunk by chunk", arguments: families)
    func roundTrip(_ family: Family) async throws {
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model, override: TestTemplates.source(family.template))
        #expect(template.supportsToolCalls)
        let prompt = try template.render(Self.conversation, addGenerationPrompt: true, tools: [Self.weather], toolChoice: "auto")
        #expect(prompt.text.contains("get_weather") || !family.describesTools, "the tool is not in the prompt")
        let output = try Self.modelOutput(family, template: template, prompt: prompt)
        let parsed = try prompt.render.parse(output, isPartial: false)
        #expect(parsed.toolCalls.count == 1, "\(family.template): \(output.debugDescription) → \(parsed)")
        let call = try #require(parsed.toolCalls.first)
        #expect(call.name == "get_weather")
        let arguments = try JSONSerialization.jsonObject(with: Data(call.arguments.utf8)) as? [String: String]
        #expect(arguments == ["city": "Seoul"])
        #expect(parsed.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)

        // Streaming: every prefix parses, and the call, once seen, only grows.
        var seen = 0
        var lastArguments = ""
        for length in 1...output.count {
            let partial = try prompt.render.parse(String(output.prefix(length)), isPartial: true)
            #expect(partial.toolCalls.count >= seen)
            seen = partial.toolCalls.count
            if let current = partial.toolCalls.first?.arguments {
                #expect(current.hasPrefix(lastArguments))
                lastArguments = current
            }
        }
        #expect(seen == 1)
    }

    @Test("a template that cannot take tools is detected, never silently dropped")
    func unsupported() async throws {
        let model = try await TestModel.load()
        let phi = try TestTemplates.source("microsoft-Phi-3.5-mini-instruct")
        #expect(throws: ChatTemplate.Error.toolsUnsupported(template: "override")) {
            _ = try Conversation(model: model, tools: [DynamicTool(name: "noop", description: "Does nothing",
                                                                   parametersSchema: #"{"type":"object"}"#) { _ in "" }],
                                 configuration: .init(chatTemplate: phi))
        }
        #expect(throws: ChatTemplate.Error.toolsUnsupported(template: "builtin:gemma")) {
            _ = try Conversation(model: model, tools: [DynamicTool(name: "noop", description: "Does nothing",
                                                                   parametersSchema: #"{"type":"object"}"#) { _ in "" }])
        }
    }
}
