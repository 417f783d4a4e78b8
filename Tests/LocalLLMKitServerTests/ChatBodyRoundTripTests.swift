import Foundation
@testable import LocalLLMKit
@testable import LocalLLMKitServer
import Testing

/// The chat request is one wire value (`ChatCompletionBody`): what `RemoteModel` writes, the
/// server reads back into an equal value. A field one side writes and the other drops, or reads
/// differently, makes the two values differ. Pure logic, no model.
struct ChatBodyRoundTripTests {
    /// A body with every field set, as far as the client's settings and the wire allow.
    private static func everything(format: OutputFormat) throws -> ChatCompletionBody {
        var options = CompletionOptions(maximumResponseTokens: 5, stopSequences: ["END", "\n\n"], logProbabilityAlternatives: 3)
        for field in SamplingWireField.all {
            switch field.kind {
            case .number(let range): field.apply(&options, .number((range.lowerBound + range.upperBound) / 2))
            case .integer(let range): field.apply(&options, .integer(min(max(range.lowerBound, 1), range.upperBound)))
            case .strings: field.apply(&options, .array([.string(","), .string("\n")]))
            }
        }
        options.sampling.logitBias = [5: -2, 900: 1.5]
        options.adapterScales = [0.5, 0.25]
        let messages: [ChatMessage] = [
            .system("Be brief."), .user("Weather?"),
            ChatMessage(role: .assistant, content: "", toolCalls: [.init(name: "f", arguments: #"{"city":"Paris"}"#, id: "call_1")]),
            .tool(#"{"sky":"rain"}"#, callID: "call_1", name: "f"),
        ]
        let tools = [
            ChatCompletionBody.Tool(name: "f", description: "Weather", parameters: .object([
                ("type", .string("object")), ("properties", .object([("city", .object([("type", .string("string"))]))])),
            ])),
            ChatCompletionBody.Tool(name: "g", description: "", parameters: .object([("type", .string("object"))])),
        ]
        var body = try ChatCompletionBody(model: "m", sending: messages, options: options, seed: 7, format: format,
                                          thinking: .enabled(budget: 10, budgetMessage: "enough"), offer: (tools, "required"))
        body.parameters.choices = 3
        body.parameters.reusesPromptCache = false
        body.thinking.effort = "low"
        return body
    }

    private static func readBack(_ body: ChatCompletionBody) throws -> ChatCompletionBody {
        try ChatCompletionBody(RequestBody(Data(body.json().serialized().utf8)), vocabularySize: 1000, adapterCount: 2)
    }

    @Test("every field the client writes reads back as the same value: a schema format, then a grammar")
    func roundTrip() throws {
        for format: OutputFormat in [.jsonSchema(#"{"type":"object","properties":{"b":{},"a":{}}}"#), .grammar(#"root ::= "x""#)] {
            let sent = try Self.everything(format: format)
            #expect(sent.responseFormat != nil || sent.grammar != nil)
            #expect(try Self.readBack(sent) == sent)
        }
    }

    @Test("each setting, changed alone, changes what the server reads")
    func eachFieldCounts() throws {
        let sent = try Self.everything(format: .text)
        var changes: [(String, (inout ChatCompletionBody) -> Void)] = [
            ("model", { $0.model = "other" }),
            ("messages", { $0.messages.append(.user("more")) }),
            ("stream", { $0.parameters.stream = false }),
            ("include_usage", { $0.parameters.includeUsage = false }),
            ("n", { $0.parameters.choices = 2 }),
            ("cache_prompt", { $0.parameters.reusesPromptCache = true }),
            ("stop", { $0.parameters.options.stopSequences = ["X"] }),
            ("logit_bias", { $0.parameters.options.sampling.logitBias[6] = 1 }),
            ("top_logprobs", { $0.parameters.options.logProbabilityAlternatives = 4 }),
            ("lora", { $0.parameters.options.adapterScales = [1, 0] }),
            ("tools", { $0.tools.removeLast() }),
            ("tool_choice", { $0.toolChoice = .function("g") }),
            ("response_format", { $0.responseFormat = .jsonObject }),
            ("enable_thinking", { $0.thinking.isEnabled = false }),
            ("reasoning_effort", { $0.thinking.effort = "high" }),
            ("thinking_budget_tokens", { $0.thinking.budget = 11 }),
            ("reasoning_budget_message", { $0.thinking.budgetMessage = "stop" }),
        ]
        for field in SamplingWireField.all {
            changes.append((field.name, { body in
                // Another valid value than everything()'s.
                let value: OrderedJSON = switch field.kind {
                case .number(let range): .number((range.lowerBound + 3 * range.upperBound) / 4)
                case .integer(let range): .integer(min(max(range.lowerBound, 1) + 1, range.upperBound))
                case .strings: .array([.string("z")])
                }
                field.apply(&body.parameters.options, value)
            }))
        }
        for (name, change) in changes {
            var changed = sent
            change(&changed)
            #expect(changed != sent, "\(name): the change is a no-op")
            #expect(try Self.readBack(changed) == changed, "\(name) does not read back")
        }
    }
}
