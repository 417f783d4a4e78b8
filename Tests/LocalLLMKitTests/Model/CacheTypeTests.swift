import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// KV cache types and flash attention: what a quantized cache saves, and the combinations
/// llama.cpp refuses, refused first with errors that name the setting.
@Suite("KV cache types and flash attention")
struct CacheTypeTests {
    @Test("q8_0 keys and values hold the cache in about half of f16's memory, q4_0 in about a quarter")
    func memory() async throws {
        func cacheBytes(_ type: LocalModel.Configuration.CacheType) async throws -> Int64 {
            let configuration = LocalModel.Configuration(contextLength: 4096, gpuLayers: 0, keyCacheType: type, valueCacheType: type,
                                                         flashAttention: .on)
            return try await LocalModel.memoryPlan(for: TestModel.url(), configuration: configuration).cacheBytesPerThousandTokens
        }
        let f16 = try await cacheBytes(.f16), q8 = try await cacheBytes(.q8_0), q4 = try await cacheBytes(.q4_0)
        // 34 bytes per 32 numbers against 64; 18 against 64.
        #expect(f16 > 0)
        #expect(abs(Double(q8) / Double(f16) - 34.0 / 64) < 0.02, "q8_0 \(q8), f16 \(f16)")
        #expect(abs(Double(q4) / Double(f16) - 18.0 / 64) < 0.02, "q4_0 \(q4), f16 \(f16)")
    }

    @Test("a quantized cache generates, and greedy text with q8_0 is close to f16's")
    func generates() async throws {
        let options = CompletionOptions(maximumResponseTokens: 24, sampling: .greedy)
        let plain = try await TestModel.load(.init(contextLength: 512, flashAttention: .on)).complete("The capital of France is", options: options)
        let quantized = try await TestModel.load(.init(contextLength: 512, keyCacheType: .q8_0, valueCacheType: .q8_0, flashAttention: .on))
        let answer = try await quantized.complete("The capital of France is", options: options)
        #expect(answer.statistics.generatedTokens == 24)
        #expect(answer.tokens.prefix(4) == plain.tokens.prefix(4), "\(answer.text.debugDescription) against \(plain.text.debugDescription)")
    }

    @Test("a quantized value cache without flash attention is an error that names the setting")
    func quantizedValuesNeedFlashAttention() async throws {
        let configuration = LocalModel.Configuration(valueCacheType: .q4_0, flashAttention: .off)
        #expect {
            try configuration.validate()
        } throws: { error in
            guard case LocalModel.Error.invalidOption(let name, let reason) = error else { return false }
            return name == "valueCacheType" && reason.contains("flash attention")
        }
        // Keys may be quantized without it, as llama.cpp allows.
        try LocalModel.Configuration(keyCacheType: .q8_0, flashAttention: .off).validate()
    }

    @Test("heads that a quantized type's blocks do not divide are refused before llama.cpp sees them", arguments: [
        LocalModel.Configuration.FlashAttention.on, .off, .auto,
    ])
    func headSizeNotAMultipleOfTheBlock(flashAttention: LocalModel.Configuration.FlashAttention) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("tiny.gguf")
        try GGUFBuilder.tinyModel().write(to: url)                      // heads of 16 numbers
        for (keys, values) in [(LocalModel.Configuration.CacheType.q8_0, LocalModel.Configuration.CacheType.f16),
                               (.f16, flashAttention == .off ? .f16 : .q4_0)] where keys != values {
            let configuration = LocalModel.Configuration(contextLength: 64, keyCacheType: keys, valueCacheType: values,
                                                         flashAttention: flashAttention)
            await #expect {
                _ = try await LocalModel.load(from: url, configuration: configuration)
            } throws: { error in
                guard case LocalModel.Error.invalidOption(let name, let reason) = error else { return false }
                return name == (keys.isQuantized ? "keyCacheType" : "valueCacheType") && reason.contains("have 16")
            }
        }
        // The same model loads and runs with an f16 cache (its random weights may end at once).
        let model = try await LocalModel.load(from: url, configuration: .init(contextLength: 64, flashAttention: flashAttention))
        let answer = try await model.complete("a", options: .init(maximumResponseTokens: 2))
        #expect(answer.statistics.promptTokens >= 1 && [.endOfText, .maximumTokens].contains(answer.stopReason))
    }
}
