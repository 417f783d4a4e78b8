import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// The process-wide model cache, through real loads of SmolLM2 and the small synthetic mimo2.
@Suite("Loaded models", .serialized)
struct LoadedModelsTests {
    static let small = LocalModel.Configuration(contextLength: 512)

    @Test("a model asked for twice, or twice at once, is loaded once; another configuration is another model")
    func sharing() async throws {
        let cache = LoadedModels(policy: .init(keepAlive: nil))
        async let a = cache.model(named: "default", configuration: Self.small)
        async let b = cache.model(at: try ReferenceModel.chatURL(), configuration: Self.small)
        let (first, second) = try await (a, b)
        #expect(first === second)
        #expect(try await cache.model(named: "default", configuration: Self.small) === first)
        let other = try await cache.model(named: "default", configuration: .init(contextLength: 256))
        #expect(other !== first)
        let entries = await cache.entries
        #expect(entries.count == 2 && entries.allSatisfy { $0.memoryBytes > 50 << 20 })
        #expect(entries.first?.configuration.context.length == 256)       // the most recently used first
        await cache.unload(first)
        #expect(await cache.entries.count == 1)
        #expect(try await cache.model(named: "default", configuration: Self.small) !== first)
    }

    @Test("an idle model is unloaded after its keep-alive; a busy one stays until it is done")
    func keepAlive() async throws {
        let cache = LoadedModels(policy: .init(keepAlive: .milliseconds(300)))
        let unloaded = Mutex(0)
        await cache.onUnload { _ in unloaded.withLock { $0 += 1 } }
        _ = try await cache.model(at: try ReferenceModel.chatURL(), configuration: Self.small)
        try await Task.sleep(for: .milliseconds(1200))
        #expect(await cache.entries.isEmpty)
        #expect(unloaded.withLock { $0 } == 1)
        let busy = try await cache.model(at: try ReferenceModel.chatURL(), configuration: Self.small)
        let stream = busy.streamCompletion("Once upon a time", options: .init(maximumResponseTokens: 400, sampling: .init(temperature: 0)))
        var pieces = 0
        for try await _ in stream {
            pieces += 1
            if pieces == 1 { try await Task.sleep(for: .milliseconds(800)) }    // well past the keep-alive
            if pieces == 3 {
                #expect(await cache.entries.count == 1, "a generating model was unloaded")
                break
            }
        }
        _ = try await stream.result
        try await Task.sleep(for: .milliseconds(1200))
        #expect(await cache.entries.isEmpty)
    }

    @Test("past the memory budget the least recently used idle model goes; with none idle, a typed error")
    func budget() async throws {
        let smolURL = try ReferenceModel.chatURL(), mtpURL = try ReferenceModel.multiTokenPredictionURL()
        let probe = LoadedModels(policy: .init(keepAlive: nil))
        _ = try await probe.model(at: smolURL, configuration: Self.small)
        _ = try await probe.model(at: mtpURL, configuration: Self.small)
        let sizes = await probe.entries.map(\.memoryBytes)
        // Room for the larger of the two, not for both.
        let cache = LoadedModels(policy: .init(keepAlive: nil, memoryBudget: sizes.max()! + sizes.min()! / 2))
        let smol = try await cache.model(at: smolURL, configuration: Self.small)
        let evicted = Mutex<[ObjectIdentifier]>([])
        await cache.onUnload { model in evicted.withLock { $0.append(ObjectIdentifier(model)) } }
        _ = try await cache.model(at: mtpURL, configuration: Self.small)
        #expect(await cache.entries.map(\.url) == [mtpURL])
        #expect(evicted.withLock { $0 } == [ObjectIdentifier(smol)])
        // While the resident model generates, nothing can make room for the other. (It generates
        // until its context is full: this tiny model is fast, and a short answer could end
        // before the load below asks, on a machine busy with other work.)
        let mtp = try await cache.model(at: mtpURL, configuration: Self.small)
        let stream = mtp.streamCompletion("def add(a, b):", options: .init(sampling: .init(temperature: 0)))
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        do {
            _ = try await cache.model(at: smolURL, configuration: Self.small)
            Issue.record("a model was loaded past the budget while the other was busy")
        } catch let LoadedModels.Error.insufficientMemory(name, required, available) {
            #expect(name == "smollm2-135m-instruct-q4_1" && required > available)
        }
        stream.cancel()
    }
}
