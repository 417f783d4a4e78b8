import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// llama-server's `/tokenize`, `/detokenize` and `/apply-template`, and how a request's `model`
/// picks the served model: the answers of `llmkit serve`'s server against llama-server's own on
/// the same model file, and greedy logprobs to 1e-4 of llama-server's (Support/llama_server_parity.py
/// starts llama-server).
@Suite(.serialized) struct TokenizerEndpointTests {
    @Test func tokenizerTemplateAndLogprobsEqualLlamaServers() async throws {
        let model = try await ServerHarness.toolModel(parallel: 1)
        let server = try ServerHarness.serve(["qwen": model])
        let outcome = try await ServerHarness.python("llama_server_parity.py", [
            "--base-url", server.baseURL.absoluteString, "--model-file", try ReferenceModel.toolCallingURL().path,
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let compared = outcome.summary?["compared"] as? Int ?? 0
        #expect(compared >= 10, "\(outcome.output)")
        // 2 prompts × 16 tokens, each with its chosen token and up to 5 alternatives.
        #expect(outcome.summary?["logprobs_compared"] as? Int ?? 0 >= 2 * 16 * 2, "\(outcome.output)")
    }

    @Test func badTokenizerRequestsGet400NamingTheField() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let server = try ServerHarness.serve(["smollm": model])
        let size = model.vocabularySize
        for (path, body, param) in [
            ("tokenize", #"{"content":{"a":1}}"#, "content"),
            ("tokenize", #"{"content":["a",-1]}"#, "content"),
            ("tokenize", #"{"content":"a","with_pieces":"yes"}"#, "with_pieces"),
            ("detokenize", #"{"tokens":[1,\#(size)]}"#, "tokens"),
            ("detokenize", #"{"tokens":"12"}"#, "tokens"),
        ] {
            let reply = try await ServerHarness.post(server, path, body)
            #expect(reply.status == 400 && reply.errorParam == param, "\(path) \(body): \(reply.status) \(reply.body)")
        }
        // A special token's text is kept, and pieces that are not UTF-8 alone come back as bytes.
        let tokens = try await ServerHarness.post(server, "tokenize", #"{"content":"é<|im_end|>","with_pieces":true}"#)
        let pieces = try #require(tokens.json?["tokens"] as? [[String: Any]], "\(tokens.body)")
        let ids = pieces.compactMap { $0["id"] as? Int }
        #expect(ids.contains { model.isEndOfGeneration(Int32($0)) }, "\(tokens.body)")
        let back = try await ServerHarness.post(server, "detokenize", #"{"tokens":\#(ids)}"#)
        #expect(back.json?["content"] as? String == "é<|im_end|>", "\(back.body)")
        let llama = try await ServerHarness.post(server, "tokenize", #"{"content":"🦙","with_pieces":true}"#)
        let llamaPieces = try #require(llama.json?["tokens"] as? [[String: Any]], "\(llama.body)")
        var bytes: [UInt8] = []
        for piece in llamaPieces {
            if let text = piece["piece"] as? String { bytes += Array(text.utf8) } else { bytes += (piece["piece"] as? [Int] ?? []).map(UInt8.init) }
        }
        #expect(llamaPieces.contains { $0["piece"] is [Int] } && bytes == Array("🦙".utf8), "\(llama.body)")
        await server.stop()
    }

    @Test func oneModelAnswersAnyNameAndSeveralNeedTheirIDs() async throws {
        let model = try await ServerHarness.chatModel(parallel: 1)
        let one = try ServerHarness.serve(["smollm": model])
        for body in [#"{"model":"gpt-4o-mini","prompt":"Hi","max_tokens":1}"#, #"{"prompt":"Hi","max_tokens":1}"#] {
            let reply = try await ServerHarness.post(one, "completions", body)
            #expect(reply.status == 200 && reply.json?["model"] as? String == "smollm", "\(reply.body)")
        }
        await one.stop()
        let embedder = try await ServerHarness.embeddingModel()
        let two = try ServerHarness.serve(["smollm": model, "minilm": embedder])
        let unknown = try await ServerHarness.post(two, "completions", #"{"model":"gpt-4o-mini","prompt":"Hi","max_tokens":1}"#)
        #expect(unknown.status == 404 && unknown.error?["code"] as? String == "model_not_found", "\(unknown.body)")
        let unnamed = try await ServerHarness.post(two, "completions", #"{"prompt":"Hi","max_tokens":1}"#)
        #expect(unnamed.status == 400 && unnamed.errorParam == "model", "\(unnamed.body)")
        let named = try await ServerHarness.post(two, "completions", #"{"model":"smollm","prompt":"Hi","max_tokens":1}"#)
        #expect(named.status == 200, "\(named.body)")
        await two.stop()
    }
}
