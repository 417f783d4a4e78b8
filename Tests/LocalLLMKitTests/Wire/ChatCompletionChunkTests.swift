import Foundation
import Testing
@testable import LocalLLMKit

/// The chat completion's wire type, written as the server writes it and read as `RemoteModel`
/// reads it: every field comes back, in OpenAI's shape.
@Suite("Wire: chat completion chunks")
struct ChatCompletionChunkTests {
    // Keys in sorted order: a decoder does not keep the order they came in.
    private static let logProbabilities = OrderedJSON.object([("content", .array([.object([
        ("id", .integer(42)), ("logprob", .number(-0.25)), ("token", .string("Hi")),
    ])]))])

    @Test("a stream chunk's every field reads back; absent fields are not written")
    func streamChunk() throws {
        let chunk = ChatCompletionChunk(id: "chatcmpl-1", created: 7, model: "m", choices: [
            .init(index: 1, delta: .init(role: "assistant", content: "Hi", reasoning: "think",
                                         toolCalls: [.init(index: 0, id: "call_1", name: "f", arguments: "{\"a\":")]),
                  logProbabilities: Self.logProbabilities, finishReason: "tool_calls"),
        ], usage: .init(promptTokens: 10, completionTokens: 3, cachedTokens: 4, reasoningTokens: 2))
        let text = chunk.serialized()
        let read = try ChatCompletionChunk.decode(text)
        #expect(read.id == "chatcmpl-1" && read.object == "chat.completion.chunk" && read.created == 7 && read.model == "m")
        let choice = try #require(read.choices.first)
        #expect(choice.index == 1 && choice.finishReason == "tool_calls")
        #expect(choice.delta.role == "assistant" && choice.delta.content == "Hi" && choice.delta.reasoning == "think")
        let call = try #require(choice.delta.toolCalls.first)
        #expect(call.index == 0 && call.id == "call_1" && call.name == "f" && call.arguments == "{\"a\":")
        #expect(choice.logProbabilities == Self.logProbabilities)
        #expect(read.usage?.promptTokens == 10 && read.usage?.completionTokens == 3)
        #expect(read.usage?.cachedTokens == 4 && read.usage?.reasoningTokens == 2)
        // OpenAI's shape: the delta under `delta`, llama-server's names for the rest.
        let json = try OrderedJSONParser.parse(text)
        guard case .object(let fields) = json, case .array(let choices)? = fields.first(where: { $0.0 == "choices" })?.1,
              case .object(let first)? = choices.first else {
            Issue.record("no choices in \(text)")
            return
        }
        #expect(Set(first.map(\.0)) == ["index", "delta", "logprobs", "finish_reason"])
        #expect(text.contains(#""reasoning_content":"think""#) && text.contains(#""total_tokens":13"#))
        #expect(text.contains(#""type":"function""#))

        // A later piece has no id, name or role, and writes none.
        let piece = ChatCompletionChunk(id: "c", created: 0, model: "m", choices: [
            .init(index: 0, delta: .init(toolCalls: [.init(index: 0, id: nil, name: nil, arguments: "1}")])),
        ]).serialized()
        #expect(!piece.contains("\"id\":null") && !piece.contains("\"role\"") && !piece.contains("\"name\"") && !piece.contains("\"type\""))
        #expect(piece.contains(#""logprobs":null"#) && piece.contains(#""finish_reason":null"#))
    }

    @Test("a whole answer writes its choices' message, with content null when it only calls tools")
    func wholeAnswer() throws {
        let whole = ChatCompletionChunk(id: "chatcmpl-2", whole: true, created: 1, model: "m", choices: [
            .init(index: 0, delta: .init(role: "assistant", content: nil,
                                         toolCalls: [.init(index: nil, id: "call_2", name: "g", arguments: "{}")]),
                  finishReason: "tool_calls"),
        ])
        let text = whole.serialized()
        #expect(text.contains(#""object":"chat.completion""#) && text.contains(#""message":{"#) && !text.contains(#""delta""#))
        #expect(text.contains(#""content":null"#))
        let read = try ChatCompletionChunk.decode(text)
        let call = try #require(read.choices.first?.delta.toolCalls.first)
        #expect(call.id == "call_2" && call.name == "g" && call.arguments == "{}" && call.index == nil)
    }

    @Test("JSON values encode as they serialize; a number JSON cannot hold is null")
    func encodedValues() throws {
        let value = OrderedJSON.object([("z", .integer(1)), ("a", .array([.number(.infinity), .bool(true), .null, .string("x"), .number(0.5)]))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(text == #"{"a":[null,true,null,"x",0.5],"z":1}"#)
    }

    @Test("log-probabilities the server writes read back as the same entries")
    func logProbabilitiesRoundTrip() throws {
        let entries = [
            TokenLogProbability(chosen: .init(token: 3, bytes: [0xE2, 0x82], logProbability: -0.125),
                                alternatives: [.init(token: 3, bytes: [0xE2, 0x82], logProbability: -0.125),
                                               .init(token: 8, bytes: Array("a".utf8), logProbability: -2.5)]),
            TokenLogProbability(chosen: .init(token: 4, bytes: [0xAC], logProbability: 0), alternatives: []),
        ]
        let json = try OrderedJSONParser.parse(LogProbabilityJSON.chat(entries).serialized())
        #expect(try LogProbabilityJSON.entries(from: json) == entries)
    }
}
