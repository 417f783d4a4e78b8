import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Fitting models to memory through llama.cpp's own fitting, on the real SmolLM2 (8,192-token
/// training context) with simulated amounts of free memory (``LocalModel/Configuration/MemoryFit/availableMemory``).
/// This machine has no GPU, so only the context length is fitted here; layers are fitted on GPUs.
@Suite("Fitting models to memory", .serialized)
struct MemoryFitTests {
    static let mib: Int64 = 1 << 20

    /// A fit with a small margin, plans kept in a folder of the test's own.
    static func fit(available: Int64?, minimum: Int = 512, cache: URL? = nil) -> LocalModel.Configuration.MemoryFit {
        LocalModel.Configuration.MemoryFit(margin: 64 * mib, minimumContextLength: minimum, availableMemory: available,
                                           planCacheURL: cache, reusesPlans: cache != nil)
    }

    static func plan(_ fit: LocalModel.Configuration.MemoryFit, contextLength: Int? = nil) async throws -> LocalModel.MemoryPlan {
        try await LocalModel.memoryPlan(for: try ReferenceModel.chatURL(),
                                        configuration: .init(contextLength: contextLength, memoryFit: fit))
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("the context shrinks as memory shrinks, down to the minimum, and below the weights the model does not fit")
    func shrinking() async throws {
        let roomy = try await Self.plan(Self.fit(available: 16 << 30))
        #expect(roomy.fits && roomy.contextLength == 8192 && roomy.trainingContextLength == 8192)
        #expect(roomy.gpuLayers == 0 && roomy.devices.last?.name == "Host")
        #expect(roomy.reasons.first?.contains("training length") == true, "\(roomy.reasons)")
        let host = try #require(roomy.devices.last)
        #expect(host.weights > 50 * Self.mib && host.weights < host.availableMemory)
        // The KV cache per 1K tokens agrees with the cache at the planned length.
        let perThousand = Double(roomy.cacheBytesPerThousandTokens)
        #expect(abs(perThousand * 8 - Double(host.cache)) < 0.02 * Double(host.cache))
        var lengths: [Int] = []
        for available in [2048, 400, 330, 300].map({ Int64($0) * Self.mib }) {
            let plan = try await Self.plan(Self.fit(available: available))
            print("available \(available / Self.mib) MiB: context \(plan.contextLength), fits \(plan.fits), \(plan.summary)")
            #expect(plan.fits, "\(plan.reasons)")
            #expect(try #require(plan.devices.last).used + plan.margin <= available)
            lengths.append(plan.contextLength)
        }
        #expect(lengths == lengths.sorted(by: >), "\(lengths)")
        #expect(lengths.first == 8192 && (lengths.last ?? 0) < 8192 && (lengths.last ?? 0) >= 512, "\(lengths)")
        // Less than the weights and the compute buffers: no context is small enough.
        let tiny = try await Self.plan(Self.fit(available: host.weights + 16 * Self.mib))
        #expect(!tiny.fits && tiny.contextLength == 512)
        #expect(tiny.reasons.last?.hasPrefix("does not fit: Host") == true, "\(tiny.reasons)")
        do {
            _ = try await LocalModel.load(from: try ReferenceModel.chatURL(),
                                          configuration: .init(memoryFit: Self.fit(available: host.weights + 16 * Self.mib)))
            Issue.record("a model that does not fit was loaded")
        } catch let LocalModel.Error.insufficientMemory(path, device, required, available) {
            #expect(path == (try ReferenceModel.chatURL()).path && device == "Host")
            #expect(required > available && available == host.weights + 16 * Self.mib)
        }
    }

    @Test("values given by hand are kept; the plan says so")
    func manualValuesWin() async throws {
        let plan = try await Self.plan(Self.fit(available: 16 << 30), contextLength: 1024)
        #expect(plan.contextLength == 1024 && plan.reasons.first?.contains("given") == true)
        let tight = try await Self.plan(Self.fit(available: 330 * Self.mib), contextLength: 8192)
        #expect(tight.contextLength == 8192 && !tight.fits)
    }

    @Test("a fitted model loads with its plan and generates; the plan is kept and used again")
    func loadsAndReuses() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fit = Self.fit(available: 330 * Self.mib, cache: folder.appending(path: "plans.json"))
        let model = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(memoryFit: fit))
        let plan = try #require(model.memoryPlan)
        #expect(!plan.isReused && model.contextLength == plan.contextLength && plan.contextLength < 8192)
        let answer = try await model.complete("The capital of France is", options: .greedy(maximumResponseTokens: 4))
        #expect(answer.tokens.count == 4)
        let again = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(memoryFit: fit))
        #expect(again.memoryPlan?.isReused == true && again.contextLength == plan.contextLength)
        // A file that is not a plan store counts as empty.
        try Data("{\"version\": 1, \"entries\": 5}".utf8).write(to: folder.appending(path: "plans.json"))
        let measured = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(memoryFit: fit))
        #expect(measured.memoryPlan?.isReused == false)
    }

    @Test("a context that cannot be created at the planned size is retried a tier smaller, and that is kept")
    func retriesSmaller() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var fit = Self.fit(available: 16 << 30, minimum: 1024, cache: folder.appending(path: "plans.json"))
        fit.failsAboveContextLength = 3000
        let model = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(memoryFit: fit))
        let plan = try #require(model.memoryPlan)
        // 8192 failed, then 4096; 2048 was created.
        #expect(plan.contextLength == 2048 && plan.reductions == 2 && model.contextLength == 2048, "\(plan.reasons)")
        #expect(plan.reasons.contains { $0.contains("halved to 4096") } && plan.reasons.contains { $0.contains("halved to 2048") })
        let next = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(memoryFit: fit))
        #expect(next.memoryPlan?.isReused == true && next.memoryPlan?.contextLength == 2048)
        // At the minimum nothing smaller is left to try: the creation error stands.
        fit.failsAboveContextLength = 100
        fit.reusesPlans = false
        await #expect(throws: LocalModel.Error.self) {
            _ = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: .init(memoryFit: fit))
        }
    }

    @Test("impossible fit settings are typed errors")
    func invalidSettings() {
        for (fit, name) in [(LocalModel.Configuration.MemoryFit(margin: -1), "memoryFit.margin"),
                            (.init(minimumContextLength: 0), "memoryFit.minimumContextLength"),
                            (.init(availableMemory: -5), "memoryFit.availableMemory")] {
            #expect {
                try LocalModel.Configuration(memoryFit: fit).validate()
            } throws: { error in
                guard case LocalModel.Error.invalidOption(let option, _) = error else { return false }
                return option == name
            }
        }
    }
}
