import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// ``ModelLibrary/copy(_:to:adapters:)``: a library model that carries LoRA adapters, in its own
/// folder, applied when it is loaded by name; bad adapters refused before anything is written.
@Suite("Library models with adapters", .serialized)
struct LibraryAdapterTests {
    @Test("a copy with an adapter loads as the base with that adapter; a copy of it keeps it; a foreign adapter adds nothing")
    func copyWithAdapters() async throws {
        let folder = try TemporaryDirectory()
        let adapter = folder.file("lora.gguf"), other = folder.file("qwen-lora.gguf")
        try SyntheticFile.write("synth-lora-adapter", to: adapter)
        try SyntheticFile.write("synth-lora-adapter", to: other, ["--architecture", "qwen2"])
        let library = LibraryFixtures.library(in: folder.url)
        let base = try await library.add(importing: ReferenceModel.chatURL(), name: "smol").record
        let tuned = try await library.copy("smol", to: "smol-tuned", adapters: [.init(url: adapter, scale: 0.5)])
        let carried = try #require(tuned.adapters)
        #expect(carried.map(\.fileName) == ["adapter-1.gguf"] && carried.map(\.scale) == [0.5])
        #expect(carried[0].sha256 == (try SHA256Digest.file(at: adapter)))
        let entry = try #require(try await library.entry(named: "smol-tuned"))
        #expect(entry.adapters == [.init(url: entry.url.deletingLastPathComponent().appending(path: "adapter-1.gguf"), scale: 0.5)])
        #expect(try await library.entry(named: "smol")?.adapters == [])

        // Loaded by its entry, it answers as the base model with the adapter beside it.
        let options = CompletionOptions(maximumResponseTokens: 12, sampling: .greedy)
        let loaded = try await LocalModel.load(from: entry.url, configuration: .init(contextLength: 256, adapters: entry.adapters))
        let reference = try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
            contextLength: 256, adapters: [.init(url: adapter, scale: 0.5)]))
        #expect(try await loaded.complete("Once upon a time", options: options).tokens
                == (try await reference.complete("Once upon a time", options: options).tokens))

        // A copy of the copy keeps its adapter and adds one; the metadata reads back the same.
        let twice = try await library.copy("smol-tuned", to: "smol-twice", adapters: [.init(url: adapter, scale: 0.25)])
        #expect(twice.adapters?.map(\.fileName) == ["adapter-1.gguf", "adapter-2.gguf"])
        #expect(try await library.models().first { $0.id == twice.id }?.adapters == twice.adapters)

        // Refused before anything is written: another architecture's adapter, a NaN scale.
        let before = try await library.models()
        await #expect(throws: LocalModel.Error.self) {
            try await library.copy("smol", to: "smol-qwen", adapters: [.init(url: other)])
        }
        await #expect(throws: LocalModel.Error.self) {
            try await library.copy("smol", to: "smol-nan", adapters: [.init(url: adapter, scale: .nan)])
        }
        #expect(try await library.models() == before)
        #expect(before.contains(base))
    }

    @Test("a metadata.json whose adapter leaves the model's folder is not the library's")
    func forgedAdapterPath() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let model = try LibraryFixtures.smallModel(in: folder.url)
        let record = try await library.add(importing: model).record
        let metadata = folder.url.appending(path: "library/\(record.id)/metadata.json")
        var forged = record
        forged.adapters = [.init(fileName: "../../outside.gguf", scale: 1, sha256: String(repeating: "0", count: 64))]
        try ModelLibrary.Record.encoder.encode(forged).write(to: metadata)
        #expect(try await library.models().isEmpty)
        forged.adapters = [.init(fileName: "adapter-1.gguf", scale: 1, sha256: String(repeating: "0", count: 64))]
        try ModelLibrary.Record.encoder.encode(forged).write(to: metadata)
        #expect(try await library.models().map(\.adapters) == [forged.adapters])
    }
}
