import Foundation
import Testing
@testable import LocalLLMKitEngine

/// Header checks that need no model to run: architectures that cannot generate, and the
/// asserts of architectures too large to build here (each file is a tiny llama renamed,
/// with only the keys that reach the assert).
@Suite("GGUF architectures that llama.cpp cannot generate with, or asserts on")
struct ArchitectureLoadabilityTests {
    static func problem(_ edit: (inout GGUFBuilder) -> Void) throws -> GGUFFile.Error? {
        var builder = GGUFBuilder.tinyModel()
        edit(&builder)
        let folder = try TemporaryDirectory()
        try builder.write(to: folder.file("model.gguf"))
        return try GGUFFile(contentsOf: folder.file("model.gguf")).loadabilityProblem
    }

    static func key(of problem: GGUFFile.Error?) -> String? {
        guard case .unloadable(_, let key, _, _)? = problem else { return nil }
        return key
    }

    @Test("Hardening #9: encoder, embedding, diffusion and non-text architectures are refused by name",
          arguments: ["t5", "t5encoder", "eagle3", "dflash", "gemma-embedding", "dream", "llada", "llada-moe", "rnd1",
                      "clip", "wavtokenizer-dec"])
    func nonGenerative(architecture: String) throws {
        let problem = try Self.problem { $0.renameArchitecture(to: architecture) }
        #expect(Self.key(of: problem) == "general.architecture")
        #expect(problem?.localizedDescription.contains("general.architecture = \"\(architecture)\"") == true)
    }

    /// Each case: the architecture, its keys, and the key the check must name.
    static let assertCases: [(String, [String: GGUFBuilder.Value], String)] = [
        ("glm5-next", ["attention.indexer.kpool": .uint32(1), "attention.indexer.top_k": .uint32(8)], "attention.indexer.kpool"),
        ("glm5-next", ["attention.indexer.kpool": .uint32(3), "attention.indexer.top_k": .uint32(8)], "attention.indexer.kpool"),
        ("glm5-next", ["hyper_connection.count": .uint32(2)], "hyper_connection.count"),
        ("bailingmoe3", ["kda.safe_gate": .bool(false)], "kda.safe_gate"),
        ("bailingmoe3", ["kda.gate_lower_bound": .float32(0)], "kda.gate_lower_bound"),
        ("hy_v4", ["attention.key_length_mla": .uint32(0), "attention.value_length_mla": .uint32(16)], "attention.key_length_mla"),
        ("hy_v4", ["attention.key_length_mla": .uint32(16)], "attention.value_length_mla"),
        ("deepseek4", ["attention.compress_ratios": .uint32s(Array(repeating: 0, count: 513))], "attention.compress_ratios"),
        ("minimax-m3", ["attention.indexer.block_size": .uint32(0)], "attention.indexer.block_size"),
        ("nanbeige", ["num_loops": .uint32(257)], "num_loops"),
    ]

    @Test("Hardening #9: the asserts of single architectures' hyperparameter loading are checked",
          arguments: 0..<assertCases.count)
    func architectureAsserts(index: Int) throws {
        let (architecture, values, culprit) = Self.assertCases[index]
        let problem = try Self.problem { builder in
            builder.renameArchitecture(to: architecture)
            for (key, value) in values { builder.set("\(architecture).\(key)", value) }
        }
        #expect(Self.key(of: problem) == "\(architecture).\(culprit)", "\(String(describing: problem))")
    }

    @Test("Hardening #9: the same keys with values llama.cpp accepts pass the check")
    func acceptedValues() throws {
        let accepted: [(String, [String: GGUFBuilder.Value])] = [
            ("glm5-next", ["attention.indexer.kpool": .uint32(4), "attention.indexer.top_k": .uint32(8), "hyper_connection.count": .uint32(4)]),
            ("bailingmoe3", ["kda.safe_gate": .bool(true), "kda.gate_lower_bound": .float32(-5)]),
            ("hy_v4", ["attention.key_length_mla": .uint32(16), "attention.value_length_mla": .uint32(16)]),
            ("deepseek4", ["attention.compress_ratios": .uint32s([0, 4])]),
            ("nanbeige", ["num_loops": .uint32(256)]),
        ]
        for (architecture, values) in accepted {
            let problem = try Self.problem { builder in
                builder.renameArchitecture(to: architecture)
                for (key, value) in values { builder.set("\(architecture).\(key)", value) }
            }
            #expect(problem == nil, "\(architecture): \(String(describing: problem))")
        }
    }

    @Test("Hardening #9: a tensor with an empty dimension is refused for any architecture")
    func emptyDimension() throws {
        let problem = try Self.problem { builder in
            builder.renameArchitecture(to: "somefuturearch")
            builder.addTensor("extra.weight", [64, 0])
        }
        #expect(Self.key(of: problem) == "tensor extra.weight")
    }

    @Test("Hardening #9: integer tables are left to architectures that llama.cpp does not run as plain transformers")
    func integerTablesElsewhere() throws {
        let plain = try Self.problem { $0.addTensor("blk.0.table", [64, 4], type: 26) }
        #expect(Self.key(of: plain) == "tensor blk.0.table")
        let other = try Self.problem { builder in
            builder.renameArchitecture(to: "deepseek4")
            builder.addTensor("blk.0.ffn_gate_tid2eid.weight", [64, 4], type: 26)
        }
        #expect(other == nil, "\(String(describing: other))")
    }
}

@Suite("UGM normalizer (precompiled charsmap) checks")
struct CharsmapTests {
    static func problem(_ value: GGUFBuilder.Value) -> String? {
        guard case .uint8s(let bytes) = value else { return "not bytes" }
        return bytes.withUnsafeBytes { GGUFCharsmapCheck.problem(in: $0) }
    }

    @Test("Hardening #9: a normalizer whose every path stays inside passes, replacements included")
    func valid() {
        #expect(Self.problem(.charsmapReplacingH()) == nil)
        #expect(Self.problem(.charsmap(nodes: Array(repeating: 0, count: 256))) == nil)
        #expect(Self.problem(.charsmap(nodes: [])) == nil)
    }

    @Test("Hardening #9: every way a normalizer makes llama.cpp throw while tokenizing is found")
    func invalid() {
        #expect(Self.problem(.uint8s([1, 0])) != nil)                                           // no size field
        #expect(Self.problem(.charsmap(nodes: [0], replacements: [])) != nil)                   // array past the end
        #expect(Self.problem(.charsmap(nodes: Array(repeating: 0, count: 16)))?.contains("byte 0x10") == true)
        #expect(Self.problem(.charsmapReplacingH(offset: 7))?.contains("starts at byte 7") == true)
        #expect(Self.problem(.charsmapReplacingH(replacements: Array("H".utf8)))?.contains("no terminating NUL") == true)
    }
}
