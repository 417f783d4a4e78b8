import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("GGUF values that pass ggml's reader but abort llama.cpp")
struct LoadabilityTests {
    @Test("Hardening #9: the generator covers every class, with at least 20 variants")
    func generatorSize() {
        #expect(CorruptGGUF.all.count >= 20)
        #expect(Set(CorruptGGUF.all.map(\.name)).count == CorruptGGUF.all.count)
        #expect(CorruptGGUF.all.filter(\.killedProcessBefore).count >= 20)
    }

    @Test("Hardening #9: the header check refuses each corrupt variant, naming the key or tensor",
          arguments: CorruptGGUF.all)
    func headerCheck(variant: CorruptGGUF) throws {
        let folder = try TemporaryDirectory()
        let url = try variant.write(in: folder.url)
        do {
            let file = try GGUFFile(contentsOf: url)
            let problem = try #require(file.loadabilityProblem, "\(variant.name) passed the check")
            guard case .unloadable(let path, let key, _, _) = problem else {
                Issue.record("unexpected error \(problem)")
                return
            }
            #expect(path == url.path)
            #expect(problem.localizedDescription.contains(variant.culprit), "\(problem.localizedDescription)")
            #expect(key.contains(variant.culprit) || variant.culprit.hasPrefix("tensor"), "key \(key)")
            #expect(throws: problem) { try file.checkLoadability() }
        } catch let error as GGUFFile.Error {
            // The structural variants stop at ggml's own reader.
            guard case .invalidFile(_, let reason) = error else { throw error }
            #expect(reason.contains(variant.culprit), "\(reason)")
        }
    }

    @Test("Hardening #9: LocalModel.load throws the typed error instead of letting llama.cpp abort",
          arguments: CorruptGGUF.all)
    func load(variant: CorruptGGUF) async throws {
        let folder = try TemporaryDirectory()
        let url = try variant.write(in: folder.url)
        await #expect {
            _ = try await LocalModel.load(from: url, configuration: .init(contextLength: 128))
        } throws: { error in
            switch error as? GGUFFile.Error {
            case .unloadable(let path, _, _, _)?, .invalidFile(let path, _)?:
                return path == url.path && error.localizedDescription.contains(variant.culprit)
            default:
                return false
            }
        }
    }

    @Test("Hardening #9: the uncorrupted tiny models load and generate, so each variant's single change is what is refused",
          arguments: ["llama", "gemma3"])
    func baseModelsRun(architecture: String) async throws {
        var shape = GGUFBuilder.TinyShape()
        shape.architecture = architecture
        let folder = try TemporaryDirectory()
        try GGUFBuilder.tinyModel(shape).write(to: folder.file("tiny.gguf"))
        #expect(try GGUFFile(contentsOf: folder.file("tiny.gguf")).loadabilityProblem == nil)
        let model = try await LocalModel.load(from: folder.file("tiny.gguf"), configuration: .init(contextLength: 128))
        let result = try await model.complete("hi", options: .init(maximumResponseTokens: 2, sampling: .greedy))
        #expect(result.tokens.count == 2)
    }

    /// Headers that look odd but that llama.cpp runs: the check must leave them alone.
    static let unusualButValid: [(String, @Sendable (inout GGUFBuilder) -> Void)] = [
        ("head counts per layer", { $0.set("llama.attention.head_count", .uint32s([4, 8])) }),
        ("feed-forward sizes per layer", { $0.set("llama.feed_forward_length", .uint32s([128, 64])) }),
        ("yarn rope scaling", { $0.set("llama.rope.scaling.type", .string("yarn")); $0.set("llama.rope.scaling.factor", .float32(4)) }),
        ("a huge training context", { $0.set("llama.context_length", .uint32(.max)) }),
        ("a sliding window on llama", { $0.set("llama.attention.sliding_window", .uint32(16)) }),
        ("an unused token type", { $0.set("tokenizer.ggml.token_type_count", .uint32(0)) }),
        ("an explicit causal flag", { $0.set("llama.attention.causal", .bool(true)) }),
        ("token types llama.cpp does not know", { $0.set("tokenizer.ggml.token_type", .int32s(Array(repeating: 99, count: 300))) }),
        ("a nanbeige model with one loop", { $0.renameArchitecture(to: "nanbeige"); $0.set("nanbeige.num_loops", .uint32(1)) }),
        ("a UGM tokenizer whose normalizer replaces \"h\"", {
            $0.set("tokenizer.ggml.model", .string("t5"))
            $0.set("tokenizer.ggml.precompiled_charsmap", .charsmapReplacingH())
        }),
        ("a quantized matrix", { $0.replaceTensor("blk.0.ffn_up.weight", type: 8) }),
        ("f16 and bf16 matrices", { $0.replaceTensor("blk.0.attn_q.weight", type: 1); $0.replaceTensor("output.weight", type: 30) }),
    ]

    @Test("Hardening #9: unusual but valid headers still load and generate", arguments: 0..<unusualButValid.count)
    func notOverRejected(index: Int) async throws {
        var builder = GGUFBuilder.tinyModel()
        Self.unusualButValid[index].1(&builder)
        let folder = try TemporaryDirectory()
        try builder.write(to: folder.file("odd.gguf"))
        let problem = try GGUFFile(contentsOf: folder.file("odd.gguf")).loadabilityProblem
        #expect(problem == nil, "\(Self.unusualButValid[index].0): \(String(describing: problem))")
        let model = try await LocalModel.load(from: folder.file("odd.gguf"), configuration: .init(contextLength: 128))
        #expect(try await model.complete("hi", options: .init(maximumResponseTokens: 2, sampling: .greedy)).tokens.count == 2)
    }

    @Test("Hardening #9: the real models in the model folder stay loadable; a projector there is named for what it is")
    func realModels() throws {
        let folder = try TestModel.url().deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "gguf" }
        #expect(!files.isEmpty)
        for url in files {
            let file = try GGUFFile(contentsOf: url)
            if url.lastPathComponent.contains("mmproj") {
                // The image tests' projector (scripts/synth-vision-model) is named for what it is.
                guard case .unloadable(_, let key, _, let reason)? = file.loadabilityProblem else {
                    Issue.record("\(url.lastPathComponent): \(String(describing: file.loadabilityProblem))")
                    continue
                }
                #expect(key == "general.architecture" && reason.contains("vision projector"), "\(reason)")
            } else {
                #expect(file.loadabilityProblem == nil, "\(url.lastPathComponent): \(String(describing: file.loadabilityProblem))")
            }
        }
        let gemma = try GGUFFile(contentsOf: TestModel.url())
        #expect(gemma.vocabulary.tokenCount == 262_144)
        #expect(gemma.vocabulary.duplicate == nil)
        #expect(gemma.vocabulary.missingByteTokens.isEmpty)
        #expect(gemma.tensors.count == gemma.tensorCount)
        #expect(gemma.tensors.first { $0.name == "token_embd.weight" }?.dimensions == [640, 262_144])
    }
}
