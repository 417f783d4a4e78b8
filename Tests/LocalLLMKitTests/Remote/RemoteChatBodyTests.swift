import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Remote: request bodies")
struct RemoteChatBodyTests {
    static func json(_ request: ChatCompletionBody) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(request.json().serialized().utf8)) as? [String: Any])
    }

    static let messages: [ChatMessage] = [
        .system("Be brief."),
        .user("Weather?"),
        ChatMessage(role: .assistant, content: "", thinking: "I should call the tool.",
                    toolCalls: [.init(name: "get_weather", arguments: #"{"city":"Paris"}"#, id: "call_1")]),
        .tool(#"{"sky":"rain"}"#, callID: "call_1", name: "get_weather"),
    ]

    @Test("messages, streaming with usage, length, stops, seed and every sampling field that is set")
    func fields() throws {
        let sampling = CompletionOptions.Sampling(temperature: 0.5, topK: 20, topP: 0.9, minP: 0.05, repetitionPenalty: 1.1,
                                                  presencePenalty: 0.2, frequencyPenalty: 0.3, penaltyWindow: 64,
                                                  logitBias: [42: -.infinity, 7: 1.5])
        let request = try ChatCompletionBody(model: "qwen", sending: Self.messages,
                                            options: .init(maximumResponseTokens: 32, stopSequences: ["END"], sampling: sampling),
                                            seed: 1234, format: .text)
        let body = try Self.json(request)
        #expect(body["model"] as? String == "qwen")
        #expect(body["stream"] as? Bool == true)
        #expect((body["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        #expect(body["max_tokens"] as? Int == 32 && body["stop"] as? [String] == ["END"] && body["seed"] as? Int == 1234)
        #expect(body["temperature"] as? Double == 0.5 && body["top_p"] as? Double == 0.9)
        #expect(body["presence_penalty"] as? Double == 0.2 && body["frequency_penalty"] as? Double == 0.3)
        #expect(body["top_k"] as? Int == 20 && body["min_p"] as? Double == 0.05)
        #expect(body["repeat_penalty"] as? Double == 1.1 && body["repeat_last_n"] as? Int == 64)
        #expect(body["logit_bias"] as? [String: Double] == ["42": -100, "7": 1.5])
        #expect(body["tools"] == nil && body["tool_choice"] == nil && body["response_format"] == nil)
        #expect(body["chat_template_kwargs"] == nil)
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "tool"])
        #expect(messages[2]["reasoning_content"] == nil, "thinking is not sent back")
        let call = try #require((messages[2]["tool_calls"] as? [[String: Any]])?.first)
        #expect(call["id"] as? String == "call_1" && call["type"] as? String == "function")
        #expect((call["function"] as? [String: Any])?["arguments"] as? String == #"{"city":"Paris"}"#)
        #expect(messages[3]["tool_call_id"] as? String == "call_1")
    }

    @Test("llama-server's other sampling fields, each group whole, and a grammar as its grammar field")
    func llamaServerFields() throws {
        var options = CompletionOptions()
        options.sampling.typicalP = 0.7
        options.sampling.repetitionGuard = .init(multiplier: 0.8, base: 2, allowedLength: 3, window: 128, sequenceBreakers: ["\n", "."])
        options.sampling.topChoiceExclusion = .init(probability: 0.4, threshold: 0.2)
        options.sampling.mirostat = .init(version: .v1, tau: 4, eta: 0.2)
        let body = try Self.json(ChatCompletionBody(model: "m", sending: [.user("hi")], options: options, seed: 3,
                                                   format: .grammar(#"root ::= "x""#)))
        #expect(body["typical_p"] as? Double == 0.7)
        #expect(body["dry_multiplier"] as? Double == 0.8 && body["dry_base"] as? Double == 2 && body["dry_allowed_length"] as? Int == 3)
        #expect(body["dry_penalty_last_n"] as? Int == 128 && body["dry_sequence_breakers"] as? [String] == ["\n", "."])
        #expect(body["xtc_probability"] as? Double == 0.4 && body["xtc_threshold"] as? Double == 0.2)
        #expect(body["mirostat"] as? Int == 1 && body["mirostat_tau"] as? Double == 4 && body["mirostat_eta"] as? Double == 0.2)
        #expect(body["grammar"] as? String == #"root ::= "x""# && body["response_format"] == nil)
    }

    @Test("fields left unset are not sent: the server's defaults apply")
    func defaults() throws {
        let body = try Self.json(ChatCompletionBody(model: "m", sending: [.user("hi")], options: .init(), seed: 9, format: .text))
        #expect(Set(body.keys) == ["model", "messages", "stream", "stream_options", "seed"])
    }

    @Test("thinking: nil sends nothing; off and on go through chat_template_kwargs, the budget beside it")
    func thinking() throws {
        let off = try ChatCompletionBody(model: "m", sending: [.user("hi")], options: .init(), seed: 1, format: .text,
                                         thinking: .disabled)
        #expect(try Self.json(off)["chat_template_kwargs"] as? [String: Bool] == ["enable_thinking": false])
        let on = try ChatCompletionBody(model: "m", sending: [.user("hi")], options: .init(), seed: 1, format: .text,
                                        thinking: .enabled(budget: 128, budgetMessage: "Answer now."))
        let body = try Self.json(on)
        #expect(body["chat_template_kwargs"] as? [String: Bool] == ["enable_thinking": true])
        #expect(body["thinking_budget_tokens"] as? Int == 128 && body["reasoning_budget_message"] as? String == "Answer now.")
    }

    @Test("tools: the definitions and the choice; a named tool is offered alone, as required")
    func tools() throws {
        let box = try ToolBox([
            DynamicTool(name: "get_weather", description: "Weather", parametersSchema: #"{"type":"object","properties":{"city":{"type":"string"}}}"#) { _ in "" },
            DynamicTool(name: "calc", description: "Math", parametersSchema: #"{"type":"object"}"#) { _ in "" },
        ])
        var body = try Self.json(ChatCompletionBody(model: "m", sending: [.user("hi")], options: .init(), seed: 1, format: .text,
                                                    offer: try box.offer(.auto)))
        let tools = try #require(body["tools"] as? [[String: Any]])
        #expect(tools.compactMap { ($0["function"] as? [String: Any])?["name"] as? String } == ["get_weather", "calc"])
        #expect(tools.allSatisfy { $0["type"] as? String == "function" })
        let parameters = try #require((tools[0]["function"] as? [String: Any])?["parameters"] as? [String: Any])
        #expect(parameters["type"] as? String == "object")
        #expect(body["tool_choice"] as? String == "auto")
        body = try Self.json(ChatCompletionBody(model: "m", sending: [.user("hi")], options: .init(), seed: 1, format: .text,
                                                offer: try box.offer(.named("calc"))))
        #expect((body["tools"] as? [[String: Any]])?.count == 1 && body["tool_choice"] as? String == "required")
    }

    @Test("a schema format becomes a strict json_schema response_format, with the schema's key order kept")
    func schemaFormat() throws {
        let schema = OutputSchema("Verdict: a decision") {
            OutputSchema.Property("approved", .boolean)
            OutputSchema.Property("reason", .string)
        }
        let format = try #require(try ChatCompletionBody.ResponseFormat(.schema(schema))).json
        let text = format.serialized()
        #expect(text.hasPrefix(#"{"type":"json_schema","json_schema":{"name":"Verdict__a_decision","strict":true,"schema":{"#), "\(text)")
        #expect(try #require(text.range(of: "approved")).lowerBound < #require(text.range(of: "reason")).lowerBound)
        let raw = try #require(try ChatCompletionBody.ResponseFormat(.jsonSchema(#"{"type":"object","properties":{"b":{},"a":{}}}"#))).json
        #expect(raw.serialized() == #"{"type":"json_schema","json_schema":{"name":"schema","strict":true,"schema":{"type":"object","properties":{"b":{},"a":{}}}}}"#)
        #expect(try ChatCompletionBody.ResponseFormat(.text) == nil)
    }

    @Test("what no server can take fails before any request: a bad schema, balanced-JSON stops")
    func unsupported() throws {
        #expect(throws: OutputFormat.Error.self) { try ChatCompletionBody.ResponseFormat(.jsonSchema("{not json")) }
        let request = try ChatCompletionBody(model: "m", sending: [.user("hi")], options: .init(stopsAtBalancedJSON: true),
                                             seed: 1, format: .text)
        #expect(throws: LocalModel.Error.invalidOption(name: "stopsAtBalancedJSON",
                                                       reason: "a server cannot stop at balanced JSON; ask for a JSON Schema format instead")) {
            try request.json()
        }
    }
}
