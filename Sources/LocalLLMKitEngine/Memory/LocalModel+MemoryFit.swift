import Foundation

extension LocalModel.Configuration {
    /// Fits the context length and the GPU layers to the memory that is free on this machine,
    /// with llama.cpp's own fitting (`common_fit_params`, as llama-server's `--fit`):
    ///
    /// - a nil ``LocalModel/Configuration/Context/length`` becomes the longest context that fits,
    ///   at most the model's training length and at least ``minimumContextLength``;
    /// - a nil ``LocalModel/Configuration/Weights/gpuLayers`` becomes as many layers as fit the GPUs;
    /// - values given by hand are kept;
    /// - a model that cannot fit at all is refused before its weights are read, with the
    ///   numbers (``LocalModel/Error/insufficientMemory(path:device:required:available:)``).
    ///
    /// The plan found for a model, these devices and about this much free memory is kept in the
    /// data folder, so the next load with the same settings skips the measuring; if the shared
    /// context then cannot be created at the planned size, loading retries a tier smaller (half
    /// the context, then fewer layers) and keeps that instead. ``LocalModel/memoryPlan`` says what
    /// was chosen and why.
    ///
    /// ```swift
    /// let model = try await LocalModel.load(from: url, configuration: .init(memoryFit: .automatic))
    /// print(model.memoryPlan?.summary ?? "")
    /// ```
    public struct MemoryFit: Sendable, Hashable, Codable {
        /// What each device keeps free, in bytes (llama.cpp's default: 1 GiB).
        public var margin: Int64
        /// The shortest context length, per sequence, that fitting may choose before it gives
        /// up (llama.cpp's default, 4096; at most the model's training length).
        public var minimumContextLength: Int
        /// Plans as if each device had at most this many bytes free (to plan for a smaller
        /// machine, or to test); nil: what the devices report (for the host, the memory
        /// available to new allocations). It can only lower what a device has.
        public var availableMemory: Int64?
        /// Where plans are kept between loads; nil: `fit-plans.json` in the data folder
        /// (`$LLMKIT_HOME`, else `${XDG_DATA_HOME:-~/.local/share}/llmkit`).
        public var planCacheURL: URL?
        /// Whether a plan kept for the same model, devices, free memory and settings is used
        /// again instead of measuring.
        public var reusesPlans: Bool
        /// Test seam: creating the shared context with more tokens per sequence than this fails,
        /// as an allocation would, so that the retry a tier smaller can be tested on any machine.
        package var failsAboveContextLength: Int?

        /// Creates a fit; every argument has a default.
        public init(margin: Int64 = 1 << 30, minimumContextLength: Int = 4096, availableMemory: Int64? = nil,
                    planCacheURL: URL? = nil, reusesPlans: Bool = true) {
            self.margin = margin
            self.minimumContextLength = minimumContextLength
            self.availableMemory = availableMemory
            self.planCacheURL = planCacheURL
            self.reusesPlans = reusesPlans
        }

        /// llama.cpp's defaults: a 1 GiB margin, contexts of at least 4096 tokens.
        public static let automatic = MemoryFit()

        /// Checks the numbers, naming the first that cannot work.
        /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)``.
        package func validate() throws {
            func fail(_ name: String, _ reason: String) -> LocalModel.Error { .invalidOption(name: name, reason: reason) }
            if margin < 0 { throw fail("memoryFit.margin", "\(margin) is negative") }
            if !(1...(1 << 24)).contains(minimumContextLength) {
                throw fail("memoryFit.minimumContextLength", "\(minimumContextLength) is not between 1 and \(1 << 24)")
            }
            if let availableMemory, availableMemory < 0 { throw fail("memoryFit.availableMemory", "\(availableMemory) is negative") }
        }

        enum CodingKeys: String, CodingKey {
            case margin, minimumContextLength, availableMemory
        }

        /// Decodes the settings that shape a plan (not where plans are kept).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(margin: try container.decode(Int64.self, forKey: .margin),
                      minimumContextLength: try container.decode(Int.self, forKey: .minimumContextLength),
                      availableMemory: try container.decodeIfPresent(Int64.self, forKey: .availableMemory))
        }

        /// Encodes the settings that shape a plan (not where plans are kept).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(margin, forKey: .margin)
            try container.encode(minimumContextLength, forKey: .minimumContextLength)
            try container.encodeIfPresent(availableMemory, forKey: .availableMemory)
        }
    }
}
