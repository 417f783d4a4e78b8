import Foundation
import Testing
@testable import LocalLLMKit

@Suite("Remote: chunk assembly")
struct RemoteReplyTests {
    static func chunk(_ json: String) throws -> ChatCompletionChunk {
        try ChatCompletionChunk.decode(json)
    }

    @Test("thinking and text deltas become events in order; usage and the finish reason are kept")
    func textAndThinking() throws {
        var reply = RemoteReply(limits: .init())
        var events: [Conversation.Event] = []
        for json in [
            #"{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}"#,
            #"{"choices":[{"index":0,"delta":{"reasoning_content":"Let me think."}}]}"#,
            #"{"choices":[{"index":0,"delta":{"reasoning":" More."}}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            #"{"choices":[{"index":1,"delta":{"content":"ignored: another choice"}}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":"lo"}}]}"#,
            #"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
            #"{"choices":[],"usage":{"prompt_tokens":36,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":24},"completion_tokens_details":{"reasoning_tokens":3}},"timings":{"prompt_ms":12.5}}"#,
        ] {
            events += try reply.apply(Self.chunk(json))
        }
        #expect(events == [.thinking("Let me think."), .thinking(" More."), .text("Hel"), .text("lo")])
        #expect(reply.content == "Hello" && reply.reasoning == "Let me think. More.")
        #expect(reply.finishReason == "length")
        #expect(reply.usage?.promptTokens == 36 && reply.usage?.cachedTokens == 24)
        #expect(reply.usage?.completionTokens == 8 && reply.usage?.reasoningTokens == 3)
        #expect(reply.timings?.promptMilliseconds == 12.5)
    }

    @Test("a chunk's log-probabilities come before its text; a logprobs value of another shape is an invalid response")
    func logProbabilities() throws {
        var reply = RemoteReply(limits: .init())
        let events = try reply.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"id":7,"token":"Hi","bytes":[72,105],"logprob":-0.5,"top_logprobs":[{"id":7,"token":"Hi","bytes":[72,105],"logprob":-0.5},{"id":9,"token":"Yo","logprob":-1.5}]}]}}]}"#))
        let entry = TokenLogProbability(chosen: .init(token: 7, bytes: [72, 105], logProbability: -0.5),
                                        alternatives: [.init(token: 7, bytes: [72, 105], logProbability: -0.5),
                                                       .init(token: 9, bytes: Array("Yo".utf8), logProbability: -1.5)])
        #expect(events == [.logProbability(entry), .text("Hi")])
        #expect(reply.logProbabilities == [entry])
        #expect(try reply.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{"content":"!"},"logprobs":null}]}"#)) == [.text("!")])
        for bad in [#""yes""#, #"{"content":[1]}"#, #"{"content":[{"id":1}]}"#, #"{"tokens":[]}"#,
                    #"{"content":[{"id":1,"logprob":-1,"bytes":[72,300]}]}"#] {
            #expect(throws: RemoteModel.Error.self) {
                _ = try reply.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{},"logprobs":\#(bad)}]}"#))
            }
        }
    }

    @Test("tool-call pieces are joined by index, in the order the calls began, even interleaved")
    func toolCallsByIndex() throws {
        var reply = RemoteReply(limits: .init())
        for json in [
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"calc","arguments":"{\"x\":"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ] {
            #expect(try reply.apply(Self.chunk(json)).isEmpty)
        }
        #expect(reply.calls == [RemoteReply.Call(id: "call_a", name: "get_weather", arguments: #"{"city":"Paris"}"#),
                                RemoteReply.Call(id: "call_b", name: "calc", arguments: #"{"x":2}"#)])
        #expect(reply.finishReason == "tool_calls")
    }

    @Test("calls without indexes (sent whole), arguments as an object, and a repeated name")
    func callsWithoutIndexes() throws {
        var reply = RemoteReply(limits: .init())
        _ = try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":{"k":1}}}]}}]}"#))
        _ = try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}"#))
        _ = try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g"}}]}}]}"#))
        #expect(reply.calls == [RemoteReply.Call(id: "a", name: "f", arguments: #"{"k":1}"#),
                                RemoteReply.Call(id: "b", name: "g", arguments: "{}")])
    }

    @Test("a non-streamed completion reads as one chunk (its message as the delta)")
    func wholeCompletion() throws {
        var reply = RemoteReply(limits: .init())
        let events = try reply.apply(Self.chunk(#"{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#))
        #expect(events == [.text("Paris.")])
        #expect(reply.finishReason == "stop" && reply.usage?.completionTokens == 2)
    }

    @Test("vLLM's stop_reason names the stop string")
    func stopString() throws {
        var reply = RemoteReply(limits: .init())
        _ = try reply.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":"END"}]}"#))
        #expect(reply.stopString == "END")
        var other = RemoteReply(limits: .init())
        _ = try other.apply(Self.chunk(#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":151645}]}"#))
        #expect(other.stopString == nil)
    }

    @Test("an error inside the stream is a serverError")
    func errorInStream() throws {
        var reply = RemoteReply(limits: .init())
        #expect(throws: RemoteModel.Error.serverError(type: "server_error", message: "the slot was lost")) {
            try reply.apply(Self.chunk(#"{"error":{"code":500,"message":"the slot was lost","type":"server_error"}}"#))
        }
        #expect(throws: RemoteModel.Error.serverError(type: nil, message: "boom")) {
            try reply.apply(Self.chunk(#"{"error":"boom"}"#))
        }
    }

    @Test("a hostile server: too many calls, a huge index, over-long arguments, and data that is not a chunk")
    func bounds() throws {
        let limits = RemoteModel.Limits(maximumToolCalls: 3, maximumArgumentBytes: 64)
        var reply = RemoteReply(limits: limits)
        for index in 0..<3 {
            _ = try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"index":\#(index),"function":{"name":"f"}}]}}]}"#))
        }
        #expect(throws: RemoteModel.Error.self) {
            try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"index":3,"function":{"name":"f"}}]}}]}"#))
        }
        #expect(throws: RemoteModel.Error.self) {
            try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"index":1000000000,"function":{"name":"f"}}]}}]}"#))
        }
        #expect(throws: RemoteModel.Error.self) {
            try reply.apply(Self.chunk(#"{"choices":[{"delta":{"tool_calls":[{"index":-1,"function":{"name":"f"}}]}}]}"#))
        }
        var arguments = RemoteReply(limits: limits)
        let piece = #"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"0123456789"}}]}}]}"#
        for _ in 0..<6 { _ = try arguments.apply(Self.chunk(piece)) }
        #expect(throws: RemoteModel.Error.self) { try arguments.apply(Self.chunk(piece)) }
        #expect(throws: RemoteModel.Error.self) { try Self.chunk("{not json") }
        #expect(throws: RemoteModel.Error.self) { try Self.chunk(#"{"choices":[{"delta":{"content":7}}]}"#) }
    }
}
