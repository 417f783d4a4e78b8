import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Fake Hugging Face and Ollama trees, built like the real ones, that hold the real model.
@Suite("Hugging Face and Ollama caches")
struct ModelDiscoveryTests {
    /// `hub/models--org--name/{blobs,refs,snapshots/<rev>}` with a relative symlink, as huggingface_hub writes it.
    static func huggingFaceCache(in hub: URL) throws {
        let repository = hub.appending(path: "models--test-org--gemma-3-270m-GGUF")
        let blob = repository.appending(path: "blobs/\(LibraryFixtures.gemmaSHA256)")
        try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: blob, withDestinationURL: TestModel.url())
        let snapshot = repository.appending(path: "snapshots/0123abcd/quantized")
        try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: snapshot.appending(path: "gemma-3-270m-Q4_K_M.gguf").path,
                                                   withDestinationPath: "../../../blobs/\(LibraryFixtures.gemmaSHA256)")
        try Data("README".utf8).write(to: snapshot.appending(path: "README.md"))
        try FileManager.default.createDirectory(at: repository.appending(path: "refs"), withIntermediateDirectories: true)
        try Data("0123abcd".utf8).write(to: repository.appending(path: "refs/main"))
    }

    /// `models/{manifests/registry.ollama.ai/library/gemma3/270m, blobs/sha256-<hex>}`.
    static func ollamaStore(in models: URL) throws {
        let manifest = models.appending(path: "manifests/registry.ollama.ai/library/gemma3/270m")
        try FileManager.default.createDirectory(at: manifest.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("""
        {"schemaVersion":2,"config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:\(String(repeating: "1", count: 64))"},
         "layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:\(LibraryFixtures.gemmaSHA256)","size":253113024},
                   {"mediaType":"application/vnd.ollama.image.license","digest":"sha256:\(String(repeating: "2", count: 64))"}]}
        """.utf8).write(to: manifest)
        let blobs = models.appending(path: "blobs")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: blobs.appending(path: "sha256-\(LibraryFixtures.gemmaSHA256)"),
                                                   withDestinationURL: TestModel.url())
    }

    /// Loads a discovered model and generates a few tokens with it.
    static func generate(with url: URL) async throws -> String {
        let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 256))
        return try await model.complete("Once upon a time", options: .init(maximumResponseTokens: 4, sampling: .greedy)).text
    }

    @Test("the Hugging Face cache is listed read-only, selectable, and loads the real model in place")
    func huggingFace() async throws {
        let folder = try TemporaryDirectory()
        try Self.huggingFaceCache(in: folder.file("hf-home/hub"))
        let library = LibraryFixtures.library(in: folder.url, environment: ["HF_HUB_CACHE": "", "HF_HOME": folder.file("hf-home").path])
        let entries = try await library.entries()
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.id == "hf-cache:test-org/gemma-3-270m-GGUF@0123abcd/quantized/gemma-3-270m-Q4_K_M.gguf")
        #expect(entry.source == .huggingFace && entry.isReadOnly && entry.bytes == 253_113_024)
        #expect(await library.resolve(entry.selection).url == entry.url)
        #expect(try await library.locate(entry.id) == entry.url)
        await #expect(throws: ModelLibrary.Error.readOnlyModel(entry.id)) { try await library.delete(entry.id) }
        #expect(FileManager.default.fileExists(atPath: entry.url.path))
        #expect(try await !Self.generate(with: entry.url).isEmpty)

        // HF_HUB_CACHE wins over HF_HOME.
        let other = LibraryFixtures.library(in: folder.url, environment: ["HF_HUB_CACHE": folder.file("hf-home/hub").path,
                                                                         "HF_HOME": "/nonexistent"])
        #expect(try await other.entries().map(\.id) == [entry.id])
    }

    @Test("Ollama's store is listed read-only with the blob's SHA-256, and loads the real model in place")
    func ollama() async throws {
        let folder = try TemporaryDirectory()
        try Self.ollamaStore(in: folder.file("ollama"))
        let library = LibraryFixtures.library(in: folder.url, environment: ["OLLAMA_MODELS": folder.file("ollama").path])
        let entry = try #require(try await library.entries().first)
        #expect(entry.id == "ollama:gemma3:270m" && entry.name == "gemma3:270m")
        #expect(entry.source == .ollama && entry.isReadOnly && entry.sha256 == LibraryFixtures.gemmaSHA256)
        #expect(entry.selection.storageValue == "ollama:gemma3:270m")
        await #expect(throws: ModelLibrary.Error.readOnlyModel("gemma3:270m")) { try await library.delete("gemma3:270m") }
        let url = try #require(await library.resolve(entry.selection).url)
        #expect(try await !Self.generate(with: url).isEmpty)

        // Removing the blob makes the selection stale, with a reason.
        try FileManager.default.removeItem(at: folder.file("ollama/blobs/sha256-\(LibraryFixtures.gemmaSHA256)"))
        #expect(await library.resolve(entry.selection).url == nil)
    }

    @Test("managed and discovered models are listed together")
    func combinedListing() async throws {
        let folder = try TemporaryDirectory()
        try Self.huggingFaceCache(in: folder.file("hub"))
        try Self.ollamaStore(in: folder.file("ollama"))
        let library = LibraryFixtures.library(in: folder.url, environment: ["HF_HUB_CACHE": folder.file("hub").path,
                                                                           "OLLAMA_MODELS": folder.file("ollama").path])
        _ = try await library.importModel(at: LibraryFixtures.smallModel(in: folder.url))
        #expect(try await library.entries().map(\.source) == [.library, .huggingFace, .ollama])
    }
}
