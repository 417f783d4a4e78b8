import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// The server under load and under abuse: many clients at once, clients that vanish, slow
/// headers, malformed bodies. Real model, real sockets, Python clients.
@Suite(.serialized) struct LoadAndFaultTests {
    /// 32 clients send 200 requests of mixed lengths, streamed and not, twice: every request
    /// completes or gets a documented error, no request sees another's text, and memory after
    /// the second round is within 10 % of the first.
    @Test func thirtyTwoClientsTwoHundredRequestsTwice() async throws {
        let model = try await ServerHarness.chatModel(parallel: 8, queue: 64)
        let server = try ServerHarness.serve(["smollm": model])
        // Short prompts (up to 4 filler sentences) and answers (4 to 24 tokens) keep the 400
        // requests to a few minutes on two cores in a debug build; `make test` sends 64 a round
        // (still 32 clients at once), `make soak` all 200.
        let outcome = try await ServerHarness.python("load_test.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--server", "llmkit",
            "--clients", "32", "--requests", ReferenceModel.fullSize ? "200" : "64", "--rounds", "2",
            "--max-tokens", "4,24", "--max-filler", "4",
        ], timeout: .seconds(1200))
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let summary = try #require(outcome.summary, "\(outcome.output)\n\(outcome.errors)")
        #expect((summary["failed"] as? [Any])?.isEmpty == true, "\(summary)")
    }

    /// A client that disconnects mid-stream frees its sequence and the next request runs at
    /// full speed; slow headers are cut off; 100 malformed bodies all get 4xx and the server
    /// keeps serving.
    @Test func disconnectsSlowHeadersAndMalformedBodies() async throws {
        let model = try await ServerHarness.chatModel(parallel: 2, context: 4096)
        let server = try ServerHarness.serve(["smollm": model], .init(requestTimeout: .seconds(3)))
        let outcome = try await ServerHarness.python("fault_test.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--server", "llmkit", "--header-timeout", "3",
        ], timeout: .seconds(300))
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let summary = try #require(outcome.summary, "\(outcome.output)\n\(outcome.errors)")
        #expect((summary["failed"] as? [Any])?.isEmpty == true, "\(summary)")
    }
}
