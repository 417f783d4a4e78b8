import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// Ollama's native API (`/api/chat`, `/api/generate`, `/api/embed`, `/api/embeddings`,
/// `/api/tags`, `/api/show`, `/api/ps`, `/api/version`) through Ollama's official Python client
/// (`ollama` from PyPI): whole and NDJSON-streamed answers, raw generation, JSON formats, a real
/// tool round on Qwen2.5-Coder-0.5B-Instruct, embeddings, listings, thinking on a thinking
/// template, `keep_alive` and typed errors.
@Suite(.serialized) struct OllamaClientTests {
    @Test func everyCheckOfTheOfficialClientPasses() async throws {
        let model = try await ServerHarness.toolModel()
        let server = try ServerHarness.serve(["qwen": model], .init(apiKey: "ollama-key-1"))
        let outcome = try await ServerHarness.python("ollama_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "qwen", "--api-key", "ollama-key-1",
        ])
        await server.stop()
        let summary = try #require(outcome.summary, "no JSON summary: \(outcome.output)\n\(outcome.errors)")
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        let passed = summary["passed"] as? [String] ?? []
        for check in ["chat", "chat_stream", "generate", "format", "tools", "embed", "models", "errors"] {
            #expect(passed.contains(check), "\(check) did not pass: \(summary)")
        }
    }

    @Test func thinkingAndKeepAliveOnAModelLoadedOnDemand() async throws {
        let template = try String(contentsOf: URL(filePath: ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local")
            .appending(path: "share/llmkit/templates/Qwen3.5-4B.jinja"), encoding: .utf8)
        let source = ModelServer.Source(url: try ReferenceModel.chatURL(), configuration: .init(contextLength: 1024, parallelSequences: 1),
                                        chatTemplate: template)
        let server = try await ModelServer(sources: ["smollm": source], residency: LoadedModels(), configuration: .init(port: 0))
        let outcome = try await ServerHarness.python("ollama_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--think", "--unloadable", "--only", "think,keep_alive",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect((outcome.summary?["passed"] as? [String]).map(Set.init) == ["think", "keep_alive"], "\(outcome.output)")
    }

    @Test func pullCopyAndDeleteThroughTheLibrary() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-ollama-library-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let served = folder.appending(path: "served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: served.appending(path: "pulled.gguf"), withDestinationURL: try ReferenceModel.chatURL())
        let configuration = LocalModel.Configuration(contextLength: 1024, parallelSequences: 1)
        let source = ModelServer.Source(url: try ReferenceModel.chatURL(), configuration: configuration)
        let library = ModelLibrary(root: folder.appending(path: "library"), environment: [:])
        let server = try await ModelServer(sources: ["smollm": source], residency: LoadedModels(),
                                           library: .init(library: library, configuration: configuration), configuration: .init(port: 0))
        let outcome = try await ServerHarness.python("ollama_checks.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "smollm", "--only", "library",
            "--pull-folder", served.path, "--pull-file", "pulled.gguf",
        ])
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output)\n\(outcome.errors)")
        #expect((outcome.summary?["passed"] as? [String]) == ["library"], "\(outcome.output)")
        #expect(try await library.models().isEmpty)                  // both deleted, by their names
    }

    @Test func aLibraryClientsMayNotChangeRefusesPullCopyAndDelete() async throws {
        let source = ModelServer.Source(url: try ReferenceModel.chatURL(), configuration: .init(contextLength: 512, parallelSequences: 1))
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-ollama-readonly-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let access = ModelServer.LibraryAccess(library: ModelLibrary(root: folder, environment: [:]), allowsChanges: false)
        let server = try await ModelServer(sources: ["smollm": source], residency: LoadedModels(), library: access,
                                           configuration: .init(port: 0))
        for (method, path, body) in [("POST", "/api/pull", #"{"model": "http://127.0.0.1:9/x.gguf"}"#),
                                     ("POST", "/api/copy", #"{"source": "smollm", "destination": "x"}"#),
                                     ("DELETE", "/api/delete", #"{"model": "smollm"}"#)] {
            var request = URLRequest(url: server.baseURL.deletingLastPathComponent().appending(path: path))
            request.httpMethod = method
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 403, "\(path)")
            let error = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect((error?["error"] as? String)?.contains("cannot be changed") == true, "\(path): \(String(decoding: data, as: UTF8.self))")
        }
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: folder.path))  // nothing was written
    }
}
