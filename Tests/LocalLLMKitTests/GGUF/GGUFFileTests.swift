import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("GGUF header reader")
struct GGUFFileTests {
    @Test("reads the real model's metadata without loading weights")
    func realModel() throws {
        let file = try GGUFFile(contentsOf: TestModel.url())
        #expect(file.version == 3)
        #expect(file.architecture == "gemma3")
        #expect(file.quantization == "Q4_K_M")
        #expect(file.trainingContextLength == 32768)
        #expect(file.hasChatTemplate == false)
        #expect(file.tensorCount == 236)
        #expect(file.parameterCount == 268_098_176)       // what llama.cpp's llama_model_n_params reports
        #expect(file.fileSize == 253_113_024)
        #expect(file.dataOffset + file.tensorDataSize <= file.fileSize)
        #expect(file.metadata["tokenizer.ggml.tokens"] == .largeArray(elementType: "str", count: 262_144))
    }

    @Test("reads general.sampling.* recommendations")
    func samplingKeys() throws {
        let directory = try TemporaryDirectory()
        var builder = GGUFBuilder()
        builder.keyValues += [("general.sampling.temp", .float32(0.25)), ("general.sampling.top_k", .uint32(12))]
        try builder.write(to: directory.file("s.gguf"))
        let recommended = try GGUFFile(contentsOf: directory.file("s.gguf")).recommendedSampling
        #expect(recommended.temperature == 0.25)
        #expect(recommended.topK == 12)
        #expect(recommended.topP == nil)
        // The file's values become sampling settings as llama.cpp reads them.
        builder.keyValues += [("general.sampling.xtc_probability", .float32(0.5)), ("general.sampling.mirostat", .int32(2)),
                              ("general.sampling.mirostat_tau", .float32(4))]
        try builder.write(to: directory.file("x.gguf"))
        let sampling = CompletionOptions.Sampling(recommendedBy: try GGUFFile(contentsOf: directory.file("x.gguf")).recommendedSampling)
        #expect(sampling.temperature == 0.25 && sampling.topK == 12)
        #expect(sampling.topChoiceExclusion == .init(probability: 0.5, threshold: 0.1))
        #expect(sampling.mirostat == .init(version: .v2, tau: 4, eta: 0.1))
        let unknown = GGUFFile.SamplingRecommendation(xtcProbability: 0, mirostat: 7)
        #expect(CompletionOptions.Sampling(recommendedBy: unknown).topChoiceExclusion == nil)
        #expect(CompletionOptions.Sampling(recommendedBy: unknown).mirostat == nil)
    }
}

@Suite("Bad model files give typed errors, never a crash")
struct BadModelFileTests {
    enum Damage: String, CaseIterable {
        case emptyFile, directory, randomBytes, magicThenGarbage, wrongVersion
        case truncatedHeader, truncatedMetadata, truncatedTensorData, headerOnly
        case tensorPastEnd, tensorOffsetMismatch
    }

    /// Builds the damaged file and returns its path and a fragment the reason must contain.
    static func make(_ damage: Damage, in directory: TemporaryDirectory) throws -> (URL, String) {
        let model = try TestModel.url()
        let url = directory.file("\(damage.rawValue).gguf")
        var random = SystemRandomNumberGenerator()
        switch damage {
        case .emptyFile:
            try Data().write(to: url)
            return (url, "empty")
        case .directory:
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return (url, "directory")
        case .randomBytes:
            try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: url)
            return (url, "not a GGUF file")
        case .magicThenGarbage:
            var bytes = Array("GGUF".utf8) + [3, 0, 0, 0]
            bytes += (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) }
            try Data(bytes).write(to: url)
            return (url, "damaged or truncated")
        case .wrongVersion:
            try Data(Array("GGUF".utf8) + [99, 0, 0, 0] + [UInt8](repeating: 0, count: 16)).write(to: url)
            return (url, "unsupported GGUF version 99")
        case .truncatedHeader:
            try writePrefix(of: model, count: 16, to: url)
            return (url, "ends inside the GGUF header")
        case .truncatedMetadata:
            try writePrefix(of: model, count: 200_000, to: url)
            return (url, "damaged or truncated")
        case .truncatedTensorData:
            try writePrefix(of: model, count: 100_000_000, to: url)
            return (url, "tensor data ends at byte")
        case .headerOnly:
            let file = try GGUFFile(contentsOf: model)
            try writePrefix(of: model, count: Int(file.dataOffset), to: url)
            return (url, "tensor data ends at byte")
        case .tensorPastEnd:
            var builder = GGUFBuilder()
            builder.tensors = [.init(name: "w", dimensions: [1 << 20], offset: 0)]
            try builder.write(to: url)
            return (url, "tensor data ends at byte")
        case .tensorOffsetMismatch:
            var builder = GGUFBuilder()
            builder.tensors = [.init(name: "a", dimensions: [8], offset: 0), .init(name: "b", dimensions: [8], offset: 1 << 40)]
            builder.dataBytes = 64
            try builder.write(to: url)
            return (url, "has offset 1099511627776, expected 32")
        }
    }

    @Test("the header reader rejects it", arguments: Damage.allCases)
    func headerReader(damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let (url, fragment) = try Self.make(damage, in: directory)
        #expect {
            try GGUFFile(contentsOf: url)
        } throws: { error in
            guard case GGUFFile.Error.invalidFile(let path, let reason) = error else { return false }
            return path == url.path && reason.contains(fragment)
        }
    }

    @Test("loading rejects it before llama.cpp sees it", arguments: [Damage.randomBytes, .truncatedTensorData, .tensorPastEnd])
    func load(damage: Damage) async throws {
        let directory = try TemporaryDirectory()
        let (url, _) = try Self.make(damage, in: directory)
        await #expect(throws: GGUFFile.Error.self) {
            _ = try await LocalModel.load(from: url)
        }
    }

    @Test("a missing file is reported as such")
    func missing() async {
        await #expect(throws: GGUFFile.Error.fileNotFound(path: "/nonexistent/model.gguf")) {
            _ = try await LocalModel.load(from: URL(filePath: "/nonexistent/model.gguf"))
        }
    }

    @Test("invalid configurations name the option")
    func invalidConfiguration() async throws {
        await #expect(throws: LocalModel.Error.invalidOption(name: "threads", reason: "0 is not between 1 and 1024")) {
            _ = try await LocalModel.load(from: TestModel.url(), configuration: .init(threads: 0))
        }
        await #expect(throws: LocalModel.Error.self) {
            _ = try await LocalModel.load(from: TestModel.url(), configuration: .init(contextLength: 0))
        }
    }
}
