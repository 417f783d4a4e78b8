import Foundation
import Testing
@testable import LocalLLMKitEngine

/// The configuration's groups: the field-by-field initializer fills each group, the groups'
/// initializers build the same value, and a loaded model reports the groups it was given.
@Suite("Configuration: weights, context and serving")
struct ConfigurationGroupsTests {
    @Test("the field-by-field initializer puts every argument in its group")
    func convenienceInitializer() {
        let adapter = LocalModel.Configuration.Adapter(url: URL(filePath: "/tmp/a.gguf"), scale: 0.5)
        let flat = LocalModel.Configuration(
            contextLength: 1024, batchSize: 256, microBatchSize: 128, threads: 3, gpuLayers: 7, usesMemoryMap: false,
            vocabularyOnly: true, parallelSequences: 4, cacheLayout: .unified, maximumQueuedRequests: 9,
            usesFullSlidingWindowCache: false, speculation: .promptLookup, repacksWeights: true, rpcServers: ["h:1"],
            tensorSplit: [1, 2], projector: .none, mediaLimits: .init(count: 3), keyCacheType: .q8_0, valueCacheType: .q4_0,
            flashAttention: .on, adapters: [adapter], controlVectorLayers: 2...5)
        let grouped = LocalModel.Configuration(
            weights: .init(gpuLayers: 7, usesMemoryMap: false, vocabularyOnly: true, repacksWeights: true, rpcServers: ["h:1"],
                           tensorSplit: [1, 2], adapters: [adapter], controlVectorLayers: 2...5, projector: .none),
            context: .init(length: 1024, batchSize: 256, microBatchSize: 128, threads: 3, cacheLayout: .unified,
                           usesFullSlidingWindowCache: false, keyCacheType: .q8_0, valueCacheType: .q4_0, flashAttention: .on),
            serving: .init(parallelSequences: 4, maximumQueuedRequests: 9, speculation: .promptLookup, mediaLimits: .init(count: 3)))
        #expect(flat == grouped)
        #expect(flat.context.length == 1024 && flat.weights.gpuLayers == 7 && flat.serving.parallelSequences == 4)
        #expect(LocalModel.Configuration() == LocalModel.Configuration(weights: .init(), context: .init(), serving: .init()))
        var changed = flat
        changed.context.threads = 2
        #expect(changed != flat && changed.weights == flat.weights && changed.effectiveThreads == 2)
    }

    @Test("validation names a grouped field by its initializer argument")
    func validationNames() {
        var configuration = LocalModel.Configuration()
        configuration.context.length = 0
        #expect(throws: LocalModel.Error.invalidOption(name: "contextLength", reason: "0 is not between 1 and \(1 << 24)")) {
            try configuration.validate()
        }
        configuration = .init()
        configuration.serving.parallelSequences = 0
        #expect(throws: LocalModel.Error.invalidOption(name: "parallelSequences", reason: "0 is not between 1 and 256")) {
            try configuration.validate()
        }
    }

    @Test("a model loaded with groups reports them")
    func loaded() async throws {
        var configuration = LocalModel.Configuration(context: .init(length: 512, threads: 1))
        configuration.serving.parallelSequences = 2
        let model = try await LocalModel.load(from: ReferenceModel.url(), configuration: configuration)
        #expect(model.contextLength == 512)
        #expect(model.configuration.context.threads == 1 && model.configuration.serving.parallelSequences == 2)
        #expect(try model.tokenize("1, 2, 3,").count > 3)
    }
}
