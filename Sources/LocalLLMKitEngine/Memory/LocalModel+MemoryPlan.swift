import Foundation

extension LocalModel {
    /// How a model fits this machine's memory: the context length and GPU layers chosen (or
    /// given), what each device would hold, and why.
    ///
    /// ```swift
    /// let plan = try await LocalModel.memoryPlan(for: url, configuration: .init(memoryFit: .automatic))
    /// print(plan.contextLength, plan.gpuLayers, plan.cacheBytesPerThousandTokens, plan.fits)
    /// ```
    public struct MemoryPlan: Sendable, Codable, Equatable {
        /// What one device would hold, in bytes.
        public struct Device: Sendable, Codable, Equatable {
            /// ggml's device name (`CUDA0`, `RPC0`…), or `Host` for the machine's memory.
            public var name: String
            /// The hardware, as ggml describes it.
            public var summary: String
            /// The memory the plan could use on it: what it reports free (for the host, the
            /// memory available to new allocations), or less with ``Configuration/MemoryFit/availableMemory``.
            public var availableMemory: Int64
            /// Its total memory.
            public var totalMemory: Int64
            /// The model's weights on it.
            public var weights: Int64
            /// The KV cache on it.
            public var cache: Int64
            /// Compute buffers on it.
            public var compute: Int64

            /// Weights, cache and compute buffers together.
            public var used: Int64 { weights + cache + compute }

            /// Whether it is the machine's own memory rather than a device's.
            public var isHost: Bool { name == "Host" }
        }

        /// Context length per sequence, in tokens.
        public var contextLength: Int
        /// Layers on GPUs (0 without any).
        public var gpuLayers: Int
        /// The model's layers that can go to a GPU.
        public var layerCount: Int
        /// The model's training context length.
        public var trainingContextLength: Int
        /// Sequences the context holds (``LocalModel/Configuration/Serving/parallelSequences``).
        public var sequences: Int
        /// Every device that would hold part of the model, then the host.
        public var devices: [Device]
        /// The KV cache's bytes for every 1,024 tokens of context (all sequences together).
        public var cacheBytesPerThousandTokens: Int64
        /// The margin each device keeps free.
        public var margin: Int64
        /// Whether every device keeps its margin.
        public var fits: Bool
        /// Why these values: which were given, which fitted, and what limited them.
        public var reasons: [String]
        /// Whether the plan was kept from an earlier load instead of measured now.
        public var isReused: Bool
        /// How many times loading at a planned size failed, and the plan went a tier smaller.
        public var reductions: Int

        /// The devices whose memory limits the plan: the GPUs (and RPC devices) when there are
        /// any, else the host.
        public var limitingDevices: [Device] { Self.limiting(devices) }

        /// The devices of `devices` whose memory limits a plan.
        static func limiting(_ devices: [Device]) -> [Device] {
            devices.contains { !$0.isHost } ? devices.filter { !$0.isHost } : devices
        }

        /// Of ``limitingDevices``, the one with the least memory left over.
        public var tightestDevice: Device? {
            limitingDevices.min { $0.availableMemory - $0.used < $1.availableMemory - $1.used }
        }

        /// "context 8192 tokens, 25 of 25 layers on GPUs; CUDA0: 5.2 of 139.1 GiB …".
        public var summary: String {
            let gib = { (bytes: Int64) in String(format: "%.2f GiB", Double(bytes) / 1_073_741_824) }
            let parts = devices.map { "\($0.name): \(gib($0.used)) of \(gib($0.availableMemory)) available" }
            return "context \(contextLength) tokens per sequence, \(gpuLayers) of \(layerCount) layers on GPUs; "
                + parts.joined(separator: ", ") + (fits ? "" : " (does not fit)")
        }
    }
}
