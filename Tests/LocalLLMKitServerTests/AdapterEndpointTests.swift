import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// Per-request LoRA adapters through the server: llama-server's `lora` field and
/// `GET/POST /lora-adapters`, against llama-server on the same files, through
/// Support/adapter_checks.py and the official `openai` client. The adapters are seeded-random
/// ones for SmolLM2 that scripts/synth-lora-adapter writes.
@Suite(.serialized) struct AdapterEndpointTests {
    /// Two seeded-random adapters for SmolLM2 in a new folder (removed by the caller).
    private func writeAdapters() async throws -> (folder: URL, adapters: [URL]) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-adapters-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let adapters = [folder.appending(path: "a.gguf"), folder.appending(path: "b.gguf")]
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../scripts/synth-lora-adapter").standardized
        let convert = try ReferenceModel.chatURL().deletingLastPathComponent().deletingLastPathComponent().appending(path: "python-convert")
        for (index, adapter) in adapters.enumerated() {
            let written = try await ServerHarness.run("/usr/bin/env", [
                "PYTHONPATH=\(convert.path)", "python3", script.path, "--base-model", try ReferenceModel.chatURL().path,
                "--output", adapter.path, "--seed", "\(11 + index * 8)",
            ])
            try #require(written.status == 0, "\(written.errors)")
        }
        return (folder, adapters)
    }

    @Test func requestsChooseTheirAdaptersAsOnLlamaServer() async throws {
        let (folder, adapters) = try await writeAdapters()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Sequences with cells of their own: each step decodes one scale's requests, so five
        // requests of five scales at once decode as they would alone, to the bit.
        let model = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 2048, parallelSequences: 5, cacheLayout: .perSequence,
            adapters: adapters.map { .init(url: $0) }))
        let server = try ServerHarness.serve(["smol": model])
        let outcome = try await ServerHarness.python("adapter_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smol", "--model-file", try ReferenceModel.chatURL().path,
            "--adapter", adapters[0].path, "--adapter", adapters[1].path, "--exact",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect((outcome.summary?["failed"] as? [Any])?.isEmpty == true, "\(outcome.output)\n\(outcome.errors)")
    }

    @Test func aRemoteConversationSendsItsAdapterScales() async throws {
        let (folder, adapters) = try await writeAdapters()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 1024, adapters: adapters.map { .init(url: $0) }))
        let server = try ServerHarness.serve(["smol": model])
        let remote = try RemoteModel(baseURL: server.baseURL, model: "smol")
        var options = CompletionOptions(maximumResponseTokens: 16, sampling: .greedy)
        let loaded = try await Conversation(model: model).respond(to: "Name a fruit.", options: options)
        options.adapterScales = [0, 0.5]
        let local = try await Conversation(model: model).respond(to: "Name a fruit.", options: options)
        let served = try await RemoteConversation(model: remote).respond(to: "Name a fruit.", options: options)
        await server.stop()
        #expect(served.text == local.text)
        #expect(local.text != loaded.text, "the scales changed nothing, so dropping them would go unnoticed")
    }

    @Test func aLibraryModelLoadsWithTheAdaptersItCarries() async throws {
        let (folder, adapters) = try await writeAdapters()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = ModelLibrary(root: folder.appending(path: "library"), environment: [:])
        try await library.add(importing: ReferenceModel.chatURL(), name: "smol")
        try await library.copy("smol", to: "smol-tuned", adapters: [.init(url: adapters[0], scale: 0.5)])
        let base = ModelServer.Source(url: try ReferenceModel.chatURL(), configuration: .init(contextLength: 512, parallelSequences: 1))
        let access = ModelServer.LibraryAccess(library: library, configuration: .init(contextLength: 512, parallelSequences: 1),
                                               allowsChanges: false)
        let server = try await ModelServer(sources: ["base": base], residency: LoadedModels(), library: access, configuration: .init(port: 0))
        func complete(_ model: String) async throws -> String {
            var request = URLRequest(url: server.baseURL.appending(path: "completions"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"model": "\#(model)", "prompt": "Once upon a time", "max_tokens": 12, "temperature": 0}"#.utf8)
            let (data, _) = try await URLSession.shared.data(for: request)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return try #require(((object?["choices"] as? [[String: Any]])?.first?["text"]) as? String, "\(String(decoding: data, as: UTF8.self))")
        }
        let tuned = try await complete("smol-tuned"), plain = try await complete("smol")
        await server.stop()
        let reference = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 512, adapters: [.init(url: adapters[0], scale: 0.5)]))
        let expected = try await reference.complete("Once upon a time", options: .init(maximumResponseTokens: 12, sampling: .greedy))
        #expect(tuned == expected.text)
        #expect(plain != tuned)
    }
}
