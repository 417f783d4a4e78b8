import Foundation
import Testing
@testable import LocalLLMKitEngine

/// Models split by llama.cpp's naming (`NAME-00001-of-0000N.gguf`): parts written with
/// ggml's own gguf writer (``GGUFSplitter``), loaded through ``LocalModel/load(from:configuration:)``.
@Suite("Split GGUF models", .serialized)
struct SplitModelTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    /// A tiny loadable model written whole, then split into `count` parts named `prefix-…`.
    func tinySplit(_ count: Int, prefix: String = "tiny", shape: GGUFBuilder.TinyShape = .init(),
                   in subfolder: String = "split") throws -> [URL] {
        let target = folder.url.appending(path: subfolder)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let whole = folder.url.appending(path: "\(prefix)-\(UUID().uuidString).gguf")
        try GGUFBuilder.tinyModel(shape).write(to: whole)
        return try GGUFSplitter.split(whole, into: count, prefix: prefix, in: target)
    }

    @Test("split names follow llama_split_path: parsed, rebuilt, and anything else refused")
    func names() throws {
        let name = try #require(GGUFFile.SplitName("Model-Q4_K_M-00002-of-00003.gguf"))
        #expect(name.prefix == "Model-Q4_K_M" && name.part == 2 && name.count == 3)
        #expect(name.fileName(part: 1) == "Model-Q4_K_M-00001-of-00003.gguf")
        for bad in ["model.gguf", "m-00004-of-00003.gguf", "m-00000-of-00003.gguf", "m-1-of-3.gguf", "-00001-of-00002.gguf",
                    "m-00001-of-00002.bin", "m-+0001-of-00002.gguf"] {
            #expect(GGUFFile.SplitName(bad) == nil, "\(bad)")
        }
    }

    @Test("the real reference model split in two loads from part 1 and writes what the whole file writes")
    func realModelSplitMatchesWhole() async throws {
        let parts = try GGUFSplitter.split(TestModel.url(), into: 2, prefix: "gemma", in: folder.url)
        let whole = try await TestModel.load(.init(contextLength: 256))
        let split = try await LocalModel.load(from: parts[0], configuration: .init(contextLength: 256))
        #expect(split.file.partURLs == parts)
        #expect(split.file.parameterCount == whole.file.parameterCount)
        #expect(split.file.tensorCount == whole.file.tensorCount)
        let options = CompletionOptions.greedy(maximumResponseTokens: 8)
        let expected = try await whole.complete("Once upon a time", options: options).text
        let actual = try await split.complete("Once upon a time", options: options).text
        #expect(!expected.isEmpty && actual == expected)
    }

    @Test("a tiny model in three parts loads and generates; its file describes all parts")
    func tinyModelInThreeParts() async throws {
        let parts = try tinySplit(3)
        let model = try await LocalModel.load(from: parts[0], configuration: .init(contextLength: 64))
        #expect(model.file.partURLs == parts)
        let sizes = try parts.map { try #require(FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) }
        #expect(model.file.fileSize == Int64(sizes.reduce(0, +)))
        _ = try await model.complete("hi", options: .greedy(maximumResponseTokens: 2))
    }

    @Test("loading another part than the first is an error naming the first")
    func notFirstPart() async throws {
        let parts = try tinySplit(3)
        await #expect(throws: GGUFFile.Error.splitPartNotFirst(path: parts[1].path, part: 2, count: 3, firstPart: parts[0].path)) {
            _ = try await LocalModel.load(from: parts[1])
        }
    }

    @Test("a missing part is a typed error naming the missing file, before llama.cpp sees any part")
    func missingPart() async throws {
        let parts = try tinySplit(3)
        try FileManager.default.removeItem(at: parts[2])
        let error = await #expect(throws: GGUFFile.Error.missingSplitPart(path: parts[2].path, part: 3, count: 3)) {
            _ = try await LocalModel.load(from: parts[0])
        }
        #expect(error?.errorDescription == "part 3 of 3 of the split model is missing: \(parts[2].path)")
    }

    @Test("a part of another model, or of a split with another count, is refused by name")
    func mismatchedParts() async throws {
        // Another model's part 2 of 3 (a model with more layers, so more tensors) in place of this one's.
        let parts = try tinySplit(3)
        let other = try tinySplit(3, prefix: "tiny", shape: .init(layers: 3), in: "other")
        try FileManager.default.removeItem(at: parts[1])
        try FileManager.default.copyItem(at: other[1], to: parts[1])
        await #expect {
            _ = try await LocalModel.load(from: parts[0])
        } throws: { error in
            guard case GGUFFile.Error.mismatchedSplitPart(let path, let reason) = error else { return false }
            return path == parts[1].path && reason.contains("another model")
        }
        // A part 2 of 2 under the name of part 2 of 3.
        let two = try tinySplit(2, prefix: "pair", in: "pair")
        try FileManager.default.removeItem(at: parts[1])
        try FileManager.default.copyItem(at: two[1], to: parts[1])
        await #expect {
            _ = try await LocalModel.load(from: parts[0])
        } throws: { error in
            guard case GGUFFile.Error.mismatchedSplitPart(let path, let reason) = error else { return false }
            return path == parts[1].path && reason.contains("part 2 of 2, expected part 2 of 3")
        }
    }

    @Test("part 1 renamed away from the split naming is refused: its other parts cannot be found")
    func renamedFirstPart() async throws {
        let parts = try tinySplit(2)
        let renamed = parts[0].deletingLastPathComponent().appending(path: "renamed.gguf")
        try FileManager.default.moveItem(at: parts[0], to: renamed)
        await #expect {
            _ = try await LocalModel.load(from: renamed)
        } throws: { error in
            guard case GGUFFile.Error.invalidFile(let path, let reason) = error else { return false }
            return path == renamed.path && reason.contains("-00001-of-00002.gguf")
        }
    }
}
