import LocalLLMKit

/// One compute device for people: `CUDA0 (CUDA): NVIDIA H200, 139.1 GiB free of 139.8 GiB`.
enum DeviceLine {
    static func describe(_ device: ComputeDevice) -> String {
        var text = "\(device.name) (\(device.backend), \(device.kind.rawValue))"
        if !device.summary.isEmpty { text += ": \(device.summary)" }
        if device.totalMemory > 0 {
            text += ", \(ByteCount.format(device.freeMemory)) free of \(ByteCount.format(device.totalMemory))"
        }
        return text
    }
}
