import Testing
@testable import LocalLLMKitEngine

@Suite("Throughput benchmark")
struct ThroughputBenchmarkTests {
    @Test("statistics follow llama-bench's definitions")
    func statistics() {
        let measurement = LocalModel.ThroughputMeasurement(test: LocalModel.ThroughputTest(promptTokens: 100), threads: 2, batchSize: 2048,
                                                microBatchSize: 512, samplesNanoseconds: [1_000_000_000, 2_000_000_000])
        #expect(measurement.samplesTokensPerSecond == [100, 50])
        #expect(measurement.averageTokensPerSecond == 75)
        #expect(abs(measurement.standardDeviationTokensPerSecond - 35.355_339) < 1e-5)
        #expect(measurement.averageNanoseconds == 1.5e9)
        #expect(abs(measurement.standardDeviationNanoseconds - 707_106_781.19) < 1)
        #expect(LocalModel.ThroughputTest(promptTokens: 512).description == "pp512")
        #expect(LocalModel.ThroughputTest(generatedTokens: 128).description == "tg128")
        #expect(LocalModel.ThroughputTest(promptTokens: 4, generatedTokens: 8).description == "pp4+tg8")
    }

    @Test("measures the real model through the engine")
    func realModel() async throws {
        let model = try await TestModel.load()
        let pp = try await model.measureThroughput(LocalModel.ThroughputTest(promptTokens: 32), repetitions: 2, threads: 2)
        let tg = try await model.measureThroughput(LocalModel.ThroughputTest(generatedTokens: 4), repetitions: 2, threads: 2)
        #expect(pp.samplesNanoseconds.count == 2 && tg.samplesNanoseconds.count == 2)
        #expect(pp.averageTokensPerSecond > 0 && tg.averageTokensPerSecond > 0)
        #expect(pp.threads == 2)
        await #expect(throws: LocalModel.Error.self) { _ = try await model.measureThroughput(LocalModel.ThroughputTest(), repetitions: 1) }
    }
}
