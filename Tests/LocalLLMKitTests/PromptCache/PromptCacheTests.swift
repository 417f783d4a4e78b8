import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// The prompt cache on disk (``LocalModel/PromptCache``), through the real model: a model loaded
/// afresh (as another process would) starts from a prompt an earlier one evaluated, answers the
/// same, and never trusts an entry that is not whole and its own.
@Suite("Prompt cache on disk", .serialized)
struct PromptCacheTests {
    /// A prompt of several hundred tokens, then `question`.
    static func prompt(_ question: String) -> String {
        let document = (1...12).map { "Paragraph \($0): the lighthouse keeper logged the weather, the passing ships and the state of the lamp, as every night." }
        return document.joined(separator: "\n") + "\nQuestion: \(question)\nAnswer:"
    }

    static let options = CompletionOptions.greedy(maximumResponseTokens: 12)

    private static func load(_ folder: URL?) async throws -> LocalModel {
        let cache = folder.map { LocalModel.PromptCache(folder: $0, minimumTokens: 64) }
        return try await LocalModel.load(from: ReferenceModel.chatURL(),
                                         configuration: .init(contextLength: 1024, threads: 2, promptCache: cache))
    }

    /// The cache's entry files, waiting up to 30 s for the first to appear.
    private static func entries(in folder: URL, waiting: Bool = true) async throws -> [URL] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let files = (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
                .filter { $0.pathExtension == "prompt" }
            if !files.isEmpty || !waiting || ContinuousClock.now > deadline { return files }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "llmkit-prompt-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a model loaded afresh starts from the prompt another evaluated, as that model itself reuses it in memory")
    func warmStart() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try await Self.load(nil).complete(Self.prompt("What did the keeper log?"), options: Self.options)

        let writer = try await Self.load(folder)
        let first = try await writer.complete(Self.prompt("What did the keeper log?"), options: Self.options)
        #expect(first.statistics.cachedPromptTokens == 0 && first.statistics.promptTokens > 200)
        #expect(first.text == plain.text, "the cache changes nothing cold")
        #expect(try await Self.entries(in: folder).count == 1)
        // The same model asked another question reuses the document from memory...
        let inMemory = try await writer.complete(Self.prompt("Which lamp?"), options: Self.options)
        #expect(inMemory.statistics.cachedPromptTokens > inMemory.statistics.promptTokens - 12, "\(inMemory.statistics)")

        // ...and a model loaded afresh (another process) reuses it from disk: the same tokens
        // from the same cached state, so the same answer, bit for bit.
        let fromDisk = try await Self.load(folder).complete(Self.prompt("Which lamp?"), options: Self.options)
        #expect(fromDisk.statistics.cachedPromptTokens == inMemory.statistics.cachedPromptTokens, "\(fromDisk.statistics)")
        #expect(fromDisk.text == inMemory.text)
        #expect(try await Self.entries(in: folder, waiting: false).count == 1, "a prompt found in the cache is not written again")
    }

    @Test("an entry read while another request generates: both answer as alone; a cancelled read leaves it usable; other stream counts keep their own")
    func readBesideGeneration() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        func twoSequences() async throws -> LocalModel {
            try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: .init(
                contextLength: 1024, threads: 2, parallelSequences: 2, promptCache: .init(folder: folder, minimumTokens: 64)))
        }
        let story = "Once upon a time, the keeper of the lighthouse"
        let long = CompletionOptions.greedy(maximumResponseTokens: 48)
        let alone = try await Self.load(nil).complete(story, options: long)
        // A one-sequence model's entry is not for a cache of two streams (llama.cpp would refuse
        // it): each keeps its own, and neither removes the other's.
        _ = try await Self.load(folder).complete(Self.prompt("What did the keeper log?"), options: Self.options)
        let single = try await Self.entries(in: folder)
        let writer = try await twoSequences()
        _ = try await writer.complete(Self.prompt("What did the keeper log?"), options: Self.options)
        await writer.flushPromptCache()
        #expect(Set(try await Self.entries(in: folder, waiting: false)).isSuperset(of: single))
        #expect(try await Self.entries(in: folder, waiting: false).count == 2)
        let reference = try await twoSequences().complete(Self.prompt("Which lamp?"), options: Self.options)
        #expect(reference.statistics.cachedPromptTokens > 200, "\(reference.statistics)")

        // A request cancelled at once, perhaps while its entry is read, leaves the entry usable;
        // then the story generates while another request's entry is found and read.
        let model = try await twoSequences()
        let cancelled = Task { try await model.complete(Self.prompt("Which lamp?"), options: Self.options) }
        cancelled.cancel()
        let outcome = try? await cancelled.value
        #expect(outcome == nil || outcome?.stopReason == .cancelled)
        async let generating = model.complete(story, options: long)
        try await Task.sleep(for: .milliseconds(200))
        let fromDisk = try await model.complete(Self.prompt("Which lamp?"), options: Self.options)
        let told = try await generating
        #expect(told.text == alone.text && told.statistics.generatedTokens == alone.statistics.generatedTokens)
        #expect(fromDisk.statistics.cachedPromptTokens == reference.statistics.cachedPromptTokens, "\(fromDisk.statistics)")
        #expect(fromDisk.text == reference.text)
    }

    @Test("a truncated entry, a flipped bit and another model's entry are ignored and removed; a link and a folder are neither read nor touched")
    func hostileEntries() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await Self.load(folder).complete(Self.prompt("What did the keeper log?"), options: Self.options)
        let entry = try #require(try await Self.entries(in: folder).first)
        let good = try Data(contentsOf: entry)
        try FileManager.default.removeItem(at: entry)

        var flipped = good
        flipped[good.count / 2] ^= 0x10
        let expectation = try await Self.load(nil).makePromptCacheStore(.init(folder: folder)).expectation
        let decoded = try #require(PromptCacheEntry.read(at: { try! good.write(to: entry); return entry }(), expecting: expectation))
        try FileManager.default.removeItem(at: entry)
        var foreign = decoded
        foreign.key = decoded.key.replacingOccurrences(of: "k=f16", with: "k=q8_0")
        let hostile: [(String, Data)] = [("truncated", good.prefix(good.count - 100)), ("flipped", flipped),
                                         ("another model's", foreign.encoded())]
        let bad = entry.deletingLastPathComponent().appending(path: "hostile.prompt")
        for (name, bytes) in hostile {
            try bytes.write(to: bad)
            let answer = try await Self.load(folder).complete(Self.prompt("What did the keeper log?"), options: Self.options)
            #expect(answer.statistics.cachedPromptTokens == 0, "\(name): \(answer.statistics)")
            #expect(answer.text == first.text, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: bad.path), "\(name): the file was kept")
            try await Self.entries(in: folder).forEach { try FileManager.default.removeItem(at: $0) }
        }
        // A link to a valid entry is not followed, nor removed.
        let outside = folder.appending(path: "outside.bin")
        try good.write(to: outside)
        try FileManager.default.createSymbolicLink(at: bad, withDestinationURL: outside)
        let linked = try await Self.load(folder).complete(Self.prompt("What did the keeper log?"), options: Self.options)
        #expect(linked.statistics.cachedPromptTokens == 0 && (try? FileManager.default.destinationOfSymbolicLink(atPath: bad.path)) != nil)
        try FileManager.default.removeItem(at: bad)
        try await Self.entries(in: folder).forEach { try FileManager.default.removeItem(at: $0) }
        // A folder where an entry would go is neither read nor replaced.
        try FileManager.default.createDirectory(at: entry, withIntermediateDirectories: true)
        let answer = try await Self.load(folder).complete(Self.prompt("What did the keeper log?"), options: Self.options)
        #expect(answer.statistics.cachedPromptTokens == 0 && answer.text == first.text)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: entry.path, isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test("two writers of the same entry leave one whole entry; the folder is kept under its bound, least recently used first")
    func writersAndEviction() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await Self.load(folder).complete(Self.prompt("What did the keeper log?"), options: Self.options)
        let entry = try #require(try await Self.entries(in: folder).first)
        let model = try await Self.load(nil)
        let bounded = LocalModel.PromptCache(folder: folder, maximumBytes: Int(try Data(contentsOf: entry).count) * 3 / 2)
        let stores = [try await model.makePromptCacheStore(bounded), try await model.makePromptCacheStore(bounded)]
        let original = try #require(PromptCacheEntry.read(at: entry, expecting: stores[0].expectation))
        for _ in 0..<4 {
            for store in stores { store.save(tokens: original.tokens, state: original.state) }
        }
        stores.forEach { $0.waitForWrites() }
        let files = try await Self.entries(in: folder, waiting: false)
        #expect(files == [entry] && PromptCacheEntry.read(at: entry, expecting: stores[0].expectation) == original)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: entry.deletingLastPathComponent().path)
        #expect(leftovers.allSatisfy { !$0.hasSuffix(".partial") }, "\(leftovers)")

        // A second entry does not fit beside the first: the older one goes.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: entry.path)
        var shorter = original.tokens
        shorter.removeLast()
        stores[0].save(tokens: shorter, state: original.state)
        stores[0].waitForWrites()
        let after = try await Self.entries(in: folder, waiting: false)
        #expect(after.count == 1 && after != [entry], "\(after)")
    }

    @Test("an entry is read back whole, even where the model's bound on a state is as large as an Int (a forged header)")
    func unboundedStateBound() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = PromptCacheEntry(key: "k", tokens: [1, 2, 3], state: Array(repeating: 7, count: 100))
        let url = folder.appending(path: "e.prompt")
        try entry.encoded().write(to: url)
        let unbounded = PromptCacheEntry.Expectation(key: "k", vocabularySize: 10, maximumTokens: 8, maximumStateBytes: .max)
        #expect(PromptCacheEntry.read(at: url, expecting: unbounded) == entry)
        #expect(PromptCacheEntry.tokenCount(at: url) == 3)
        var damaged = try Data(contentsOf: url)
        damaged[damaged.count - 1] ^= 0x01              // the digest itself
        try damaged.write(to: url)
        #expect(PromptCacheEntry.read(at: url, expecting: unbounded) == nil)
    }
}
