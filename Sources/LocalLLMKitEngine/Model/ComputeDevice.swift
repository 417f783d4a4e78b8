import CLlama

/// A device llama.cpp can compute on (the CPU, a CUDA GPU…), from ggml's backend device API.
///
/// ```swift
/// for device in ComputeDevice.all {
///     print(device.backend, device.name, device.summary, device.freeMemory, device.totalMemory)
/// }
/// ```
public struct ComputeDevice: Sendable, Equatable, Codable {
    /// What kind of device it is.
    public enum Kind: String, Sendable, Equatable, Codable {
        /// The host CPU.
        case cpu
        /// A discrete GPU.
        case gpu
        /// A GPU that shares the host's memory.
        case integratedGPU = "igpu"
        /// An accelerator used alongside the CPU (e.g. BLAS).
        case accelerator
        /// Anything else ggml reports.
        case other
    }

    /// ggml's device name, e.g. `CUDA0` or `CPU`.
    public var name: String
    /// The hardware, e.g. `NVIDIA H200` or the CPU's model name.
    public var summary: String
    /// The backend that drives it, e.g. `CUDA` or `CPU`.
    public var backend: String
    /// The kind of device.
    public var kind: Kind
    /// Free memory in bytes, as the device reports it now.
    public var freeMemory: Int64
    /// Total memory in bytes.
    public var totalMemory: Int64

    package enum CodingKeys: String, CodingKey {
        case name, summary, backend, kind
        case freeMemory = "free_memory"
        case totalMemory = "total_memory"
    }

    /// Whether model layers can be offloaded to it.
    public var isGPU: Bool { kind == .gpu || kind == .integratedGPU }

    /// Every device of every backend in this build of llama.cpp, GPUs first as ggml orders them.
    public static var all: [ComputeDevice] {
        LlamaRuntime.ensureInitialized()
        return (0..<ggml_backend_dev_count()).compactMap { index in
            ggml_backend_dev_get(index).map(ComputeDevice.init(device:))
        }
    }

    /// The devices that take offloaded layers; empty on a CPU-only build.
    public static var gpus: [ComputeDevice] { all.filter(\.isGPU) }

    private init(device: ggml_backend_dev_t) {
        name = ggml_backend_dev_name(device).map { String(cString: $0) } ?? "?"
        summary = ggml_backend_dev_description(device).map { String(cString: $0) } ?? ""
        backend = ggml_backend_dev_backend_reg(device).flatMap { ggml_backend_reg_name($0) }.map { String(cString: $0) } ?? "?"
        var free = 0, total = 0
        ggml_backend_dev_memory(device, &free, &total)
        freeMemory = Int64(clamping: free)
        totalMemory = Int64(clamping: total)
        switch ggml_backend_dev_type(device) {
        case GGML_BACKEND_DEVICE_TYPE_CPU: kind = .cpu
        case GGML_BACKEND_DEVICE_TYPE_GPU: kind = .gpu
        case GGML_BACKEND_DEVICE_TYPE_IGPU: kind = .integratedGPU
        case GGML_BACKEND_DEVICE_TYPE_ACCEL: kind = .accelerator
        default: kind = .other
        }
    }
}
