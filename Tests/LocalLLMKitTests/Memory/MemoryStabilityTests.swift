import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// The memory-stability test: it measures this process's resident memory and threads, so
/// `make test` runs it alone, before the other suites run in parallel.
@Suite("Memory stability")
struct MemoryStabilityTests {
    /// 50 cycles at full size (`make soak`), 30 otherwise: the first 10 settle, the rest are measured.
    static let cycles = ReferenceModel.fullSize ? 50 : 30

    @Test("30 load, generate, unload cycles (50 in make soak) keep memory and threads stable")
    func loadCycles() async throws {
        var baseline: (rss: Int, threads: Int)?
        for cycle in 1...Self.cycles {
            do {
                let model = try await TestModel.load(.init(contextLength: 256))
                let result = try await model.complete("Hello", options: .greedy(maximumResponseTokens: 4))
                #expect(result.tokens.count == 4)
            }
            try await Task.sleep(for: .milliseconds(20))     // let the last references go
            if cycle == 10 {
                baseline = (try #require(ProcessStatus.residentKiB), try #require(ProcessStatus.threads))
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let start = try #require(baseline)
        let rss = try #require(ProcessStatus.residentKiB)
        let threads = try #require(ProcessStatus.threads)
        // A leaked model or context would cost tens of MiB per cycle: 20 cycles would add hundreds.
        #expect(rss - start.rss < 64 * 1024, "resident memory grew by \(rss - start.rss) KiB over \(Self.cycles - 10) cycles")
        #expect(threads <= start.threads + 2, "threads grew from \(start.threads) to \(threads)")
    }
}
