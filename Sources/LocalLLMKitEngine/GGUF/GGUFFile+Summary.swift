extension GGUFFile {
    /// The model architecture (`general.architecture`), e.g. `gemma3` or `llama`.
    public var architecture: String? { metadata["general.architecture"]?.stringValue }

    /// The model's name (`general.name`), when the file has one.
    public var name: String? { metadata["general.name"]?.stringValue }

    /// The training context length (`<architecture>.context_length`).
    public var trainingContextLength: Int? {
        architecture.flatMap { metadata["\($0).context_length"]?.intValue }
    }

    /// The embedded Jinja chat template (`tokenizer.chat_template`), when present.
    public var chatTemplate: String? { metadata["tokenizer.chat_template"]?.stringValue }

    /// Whether the file embeds a chat template.
    public var hasChatTemplate: Bool { chatTemplate != nil }

    /// The quantization scheme, e.g. `Q4_K_M`, from `general.file_type`.
    public var quantization: String? {
        guard let fileType = metadata["general.file_type"]?.intValue else { return nil }
        return Self.fileTypeNames[fileType] ?? "type \(fileType)"
    }

    /// Names of llama.cpp's `llama_ftype` values.
    package static let fileTypeNames: [Int: String] = [
        0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
        10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
        16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S",
        22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
        28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
        37: "TQ2_0", 38: "MXFP4_MOE", 39: "NVFP4", 40: "Q1_0", 41: "Q2_0",
    ]

    /// Sampling recommended by the model's authors (`general.sampling.*`), as the file states
    /// it: unchecked, since a file may say anything. The engine turns it into sampling settings
    /// (``CompletionOptions/Sampling/init(recommendedBy:)``) for the fields a request leaves `nil`,
    /// and checks them there.
    public var recommendedSampling: SamplingRecommendation {
        SamplingRecommendation(
            temperature: metadata["general.sampling.temp"]?.doubleValue,
            topK: metadata["general.sampling.top_k"]?.intValue,
            topP: metadata["general.sampling.top_p"]?.doubleValue,
            minP: metadata["general.sampling.min_p"]?.doubleValue,
            repetitionPenalty: metadata["general.sampling.penalty_repeat"]?.doubleValue,
            penaltyWindow: metadata["general.sampling.penalty_last_n"]?.intValue,
            xtcProbability: metadata["general.sampling.xtc_probability"]?.doubleValue,
            xtcThreshold: metadata["general.sampling.xtc_threshold"]?.doubleValue,
            mirostat: metadata["general.sampling.mirostat"]?.intValue,
            mirostatTau: metadata["general.sampling.mirostat_tau"]?.doubleValue,
            mirostatEta: metadata["general.sampling.mirostat_eta"]?.doubleValue)
    }

    /// The `general.sampling.*` values of a file, each nil where the file has none.
    public struct SamplingRecommendation: Sendable, Equatable {
        /// `general.sampling.temp`.
        public var temperature: Double?
        /// `general.sampling.top_k`.
        public var topK: Int?
        /// `general.sampling.top_p`.
        public var topP: Double?
        /// `general.sampling.min_p`.
        public var minP: Double?
        /// `general.sampling.penalty_repeat`.
        public var repetitionPenalty: Double?
        /// `general.sampling.penalty_last_n`.
        public var penaltyWindow: Int?
        /// `general.sampling.xtc_probability`.
        public var xtcProbability: Double?
        /// `general.sampling.xtc_threshold`.
        public var xtcThreshold: Double?
        /// `general.sampling.mirostat` (1 or 2; 0 is off).
        public var mirostat: Int?
        /// `general.sampling.mirostat_tau`.
        public var mirostatTau: Double?
        /// `general.sampling.mirostat_eta`.
        public var mirostatEta: Double?
    }
}
