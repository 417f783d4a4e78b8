import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// SSE framing as curl sees it on the wire, cancellation when a client goes away, and a drain
/// that lets requests in flight finish.
@Suite(.serialized) struct StreamingAndShutdownTests {
    private static func chatBody(_ prompt: String, maxTokens: Int, stream: Bool, bias: String = "") -> String {
        #"{"model":"smollm","messages":[{"role":"user","content":"\#(prompt)"}],"max_tokens":\#(maxTokens),"#
            + #""temperature":0,"stream":\#(stream),"stream_options":{"include_usage":true},"logit_bias":{\#(bias)}}"#
    }

    /// A `logit_bias` body that keeps SmolLM2 from ending its answer.
    private static func endlessBias(_ model: LocalModel) throws -> String {
        let endings = try ["<|im_end|>", "<|endoftext|>"].map {
            try model.tokenize($0, addingBeginningOfSequence: false, parsingSpecialTokens: true)
        }
        #expect(endings.allSatisfy { $0.count == 1 })
        return endings.map { #""\#($0[0])":-100"# }.joined(separator: ",")
    }

    /// Waits (up to a minute) until `condition` holds.
    private static func wait(until condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !(await condition()), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test func aStreamIsChunkedServerSentEventsEndingInDone() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let outcome = try await ServerHarness.run("/usr/bin/curl", [
            "-sS", "-N", "-i", "--max-time", "60", "-H", "Content-Type: application/json",
            "-H", "Content-Type: application/json", "-d", Self.chatBody("Count from one to five.", maxTokens: 24, stream: true),
            server.baseURL.appending(path: "chat/completions").absoluteString,
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.errors)")
        let parts = outcome.output.components(separatedBy: "\r\n\r\n")
        let head = parts[0].lowercased()
        #expect(head.hasPrefix("http/1.1 200"))
        #expect(head.contains("content-type: text/event-stream"))
        #expect(head.contains("transfer-encoding: chunked"))
        let body = parts.dropFirst().joined(separator: "\r\n\r\n")
        // Every event is one `data:` line and a blank line; the last is [DONE].
        let events = body.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.count >= 4)
        #expect(events.allSatisfy { $0.hasPrefix("data: ") && !$0.contains("\n") })
        #expect(events.last == "data: [DONE]")
        let chunks = events.dropLast().map { try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any] }
        #expect(chunks.allSatisfy { $0?["object"] as? String == "chat.completion.chunk" })
        let finishes = chunks.compactMap { (($0?["choices"] as? [[String: Any]])?.first?["finish_reason"]) as? String }
        #expect(finishes.count == 1)
        let usage = try #require(chunks.last??["usage"] as? [String: Any])
        #expect((usage["completion_tokens"] as? Int ?? 0) > 0)
        #expect((chunks.last??["choices"] as? [Any])?.isEmpty == true)
    }

    @Test func stoppingLetsRequestsInFlightFinishAndRefusesNewOnes() async throws {
        let model = try await ServerHarness.chatModel(parallel: 2)
        let server = try ServerHarness.serve(["smollm": model])
        let url = server.baseURL.appending(path: "chat/completions").absoluteString
        let body = Self.chatBody("Write a story about a dragon.", maxTokens: 200, stream: false, bias: try Self.endlessBias(model))
        async let inFlight = ServerHarness.run("/usr/bin/curl", ["-sS", "--max-time", "300", "-w", "\n%{http_code}", "-H", "Content-Type: application/json", "-d", body, url])
        // Wait until the request is generating, then stop with room to finish.
        try await Self.wait { await model.busySequences() == 1 }
        #expect(server.requestsInFlight == 1)
        async let stopping: Void = server.stop(drainingFor: .seconds(300))
        try await Task.sleep(for: .milliseconds(200))
        let refused = try await ServerHarness.run("/usr/bin/curl", ["-sS", "--max-time", "10", "-w", "\n%{http_code}", "-H", "Content-Type: application/json", "-d", body, url])
        await stopping
        let finished = try await inFlight
        let lines = finished.output.split(separator: "\n")
        #expect(lines.last == "200", "\(finished.output)")
        let answer = try JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8)) as? [String: Any]
        let usage = try #require(answer?["usage"] as? [String: Any])
        #expect(usage["completion_tokens"] as? Int == 200)
        // A request after the stop began: 503 while draining, or no connection once closed.
        #expect(refused.output.hasSuffix("503") || refused.status != 0, "\(refused.output)")
    }

    @Test func aClientThatDisconnectsMidStreamFreesItsSequence() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let url = server.baseURL.appending(path: "chat/completions").absoluteString
        // curl gives up after 3 s of an answer that cannot end sooner.
        let body = Self.chatBody("Write a very long story.", maxTokens: 900, stream: true, bias: try Self.endlessBias(model))
        let cut = try await ServerHarness.run("/usr/bin/curl", ["-sS", "-N", "--max-time", "3", "-H", "Content-Type: application/json", "-d", body, url])
        #expect(cut.status == 28, "curl was not cut off: \(cut.output.suffix(300)) \(cut.errors)")
        #expect(cut.output.contains("chat.completion.chunk"))
        try await Self.wait { await model.busySequences() == 0 }
        #expect(await model.busySequences() == 0)
        await server.stop()
    }
}

extension LocalModel {
    /// Sequences generating now.
    func busySequences() -> Int { busySequenceCount }
}
