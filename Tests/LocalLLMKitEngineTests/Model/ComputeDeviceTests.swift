import Foundation
import Testing
@testable import LocalLLMKitEngine

@Suite("Compute devices")
struct ComputeDeviceTests {
    @Test("ggml's device list includes the CPU with its memory, and GPU offload follows the devices")
    func devices() async throws {
        let devices = ComputeDevice.all
        let cpu = try #require(devices.first { $0.kind == .cpu })
        #expect(cpu.backend == "CPU" && !cpu.name.isEmpty)
        #expect(cpu.totalMemory > 0 && cpu.freeMemory > 0 && cpu.freeMemory <= cpu.totalMemory)
        #expect(Set(devices.map(\.backend)).isSubset(of: Set(LocalModel.backendNames)))

        let model = try await TestModel.load(.init(contextLength: 256))
        if ComputeDevice.gpus.isEmpty {
            #expect(model.gpuLayerCount == 0)
        } else {
            #expect(model.gpuLayerCount == 19)                  // Gemma 3 270M: 18 blocks + output
            let cpuOnly = try await TestModel.load(.init(contextLength: 256, gpuLayers: 0))
            #expect(cpuOnly.gpuLayerCount == 0)
        }
    }
}
