import Foundation
import LocalLLMKitEngine

/// The reference model of the tests: Gemma 3 270M, a base model that scripts/bootstrap installs as
/// `models/gemma.gguf` beside the default chat model. Tests that compare against llama.cpp or
/// expect Gemma's vocabulary use it; tests of the default model ask for that one by name.
package enum ReferenceModel {
    /// The Gemma file in the bootstrap's cache; tests fail (not skip) when it is missing.
    package static func url() throws -> URL {
        try cached("gemma.gguf")
    }

    /// Qwen2.5-Coder-0.5B-Instruct, whose own template supports tool calls: the model of the
    /// tests in which a model really decides to call a tool.
    package static func toolCallingURL() throws -> URL {
        try cached("qwen2.5-coder-0.5b-instruct.gguf")
    }

    /// The draft model of the speculative-decoding tests: Qwen2.5-Coder-0.5B requantized to Q2_K
    /// by the bootstrap (the same vocabulary as ``toolCallingURL()``, other weights).
    package static func speculativeDraftURL() throws -> URL {
        try cached("qwen2.5-coder-0.5b-instruct-q2_k.gguf")
    }

    /// The multi-token-prediction model of the tests: a small mimo2 with one next-token-prediction
    /// layer and random weights shaped so that most drafts are right (scripts/synth-mtp-model).
    package static func multiTokenPredictionURL() throws -> URL {
        try cached("synthetic-mimo2-mtp.gguf")
    }

    /// all-MiniLM-L6-v2 (F16, converted by the bootstrap): the embedding model of the tests.
    package static func embeddingURL() throws -> URL {
        try cached("embedding.gguf")
    }

    /// MiniLM with a seeded-random ranking head (scripts/synth-reranker-model): the reranker of the tests.
    package static func rerankerURL() throws -> URL {
        try cached("synthetic-minilm-reranker.gguf")
    }

    /// The default chat model, SmolLM2-135M-Instruct: a small decoder to embed with.
    package static func chatURL() throws -> URL {
        try cached("default.gguf")
    }

    /// The synthetic vision projector for SmolLM2 (scripts/synth-vision-model: a random CLIP
    /// encoder with a LLaVA-1.5 `mlp` projector, 64 image tokens).
    package static func visionProjectorURL() throws -> URL {
        try cached("synthetic-clip-mlp-mmproj.gguf")
    }

    /// The same projector shape made for Gemma 3 270M's width (640): one for another model.
    package static func otherWidthProjectorURL() throws -> URL {
        try cached("synthetic-clip-mlp-mmproj-640.gguf")
    }

    /// A test image that scripts/synth-vision-model wrote: `gradient-64x48.png`,
    /// `shapes-100x100.png` or `stripes-80x60.bmp`.
    package static func imageURL(_ name: String) throws -> URL {
        let url = try chatURL().deletingLastPathComponent().deletingLastPathComponent().appending(path: "images/\(name)")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return url
    }

    /// Whether the heaviest checks run at their full size (`make soak`, `LLMKIT_SOAK=1`) rather
    /// than the smaller size of `make test`, which checks the same properties on fewer cases.
    package static let fullSize = ProcessInfo.processInfo.environment["LLMKIT_SOAK"] == "1"

    /// A model file of the bootstrap's cache.
    private static func cached(_ name: String) throws -> URL {
        var environment = ProcessInfo.processInfo.environment
        environment["LLMKIT_MODEL"] = nil
        let cache = LocalModel.defaultModelCandidates(environment: environment)[0].deletingLastPathComponent()
        let url = cache.appending(path: name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return url.resolvingSymlinksInPath()
    }
}
