import Foundation
import LocalLLMKitEngine

/// A generator of GGUF files whose header passes ggml's reader (or, for the last
/// few, fails it) but holds values that llama.cpp aborts on, or misbehaves with.
///
/// Each variant starts from a model that loads and runs: the tiny synthetic llama or
/// gemma3 of ``GGUFBuilder/tinyModel(_:)``, or the real default model's header (with
/// sparse, all-zero weights). `before` records what the pinned llama.cpp did with the
/// file before LocalLLMKit checked it, measured with `llmkit run -m FILE --max-tokens 2 hi`
/// built from the code before the check.
///
/// The variants live in `CorruptGGUF+Hyperparameters.swift` and `CorruptGGUF+Content.swift`.
/// Shared by the test targets through LocalLLMKitTestSupport: Foundation and the public API only.
package struct CorruptGGUF: Sendable, CustomStringConvertible {
    package enum Base: Sendable { case tinyLlama, tinyGemma, realModel }

    package let name: String
    /// What the error message must name: the metadata key or tensor at fault.
    package let culprit: String
    /// What llama.cpp did with this file before the loadability check existed.
    package let before: String
    package let base: Base
    private let edit: @Sendable (inout GGUFBuilder) -> Void
    private let patch: [String: GGUFHeaderPatch.Scalar]
    private let shape: GGUFBuilder.TinyShape?

    package var description: String { name }

    package init(_ name: String, _ base: Base, culprit: String, before: String, shape: GGUFBuilder.TinyShape? = nil,
         patch: [String: GGUFHeaderPatch.Scalar] = [:], edit: @escaping @Sendable (inout GGUFBuilder) -> Void = { _ in }) {
        self.name = name
        self.base = base
        self.culprit = culprit
        self.before = before
        self.shape = shape
        self.patch = patch
        self.edit = edit
    }

    /// Writes the variant into `folder` and returns its path.
    package func write(in folder: URL) throws -> URL {
        let url = folder.appending(path: "\(name).gguf")
        switch base {
        case .realModel:
            let model = try ReferenceModel.url()
            let file = try GGUFFile(contentsOf: model)
            try GGUFHeaderPatch.sparseCopy(of: model, headerSize: Int(file.dataOffset), fileSize: file.fileSize,
                                           to: url, setting: patch)
        case .tinyLlama, .tinyGemma:
            var builder = GGUFBuilder.tinyModel(shape ?? Self.shape(base))
            edit(&builder)
            try builder.write(to: url)
        }
        return url
    }

    package static func shape(_ base: Base) -> GGUFBuilder.TinyShape {
        var shape = GGUFBuilder.TinyShape()
        if base == .tinyGemma { shape.architecture = "gemma3" }
        return shape
    }

    package static func shape(_ base: Base, _ change: (inout GGUFBuilder.TinyShape) -> Void) -> GGUFBuilder.TinyShape {
        var result = shape(base)
        change(&result)
        return result
    }

    package static let assertion = "aborted: GGML_ASSERT"

    /// Every variant: one or more for each class of value that llama.cpp asserts on.
    package static let all: [CorruptGGUF] = hyperparameters + architectures + vocabulary + tensors + realModel

    /// Whether the pinned llama.cpp killed the process (abort, signal or hang) on this
    /// variant before LocalLLMKit checked it, rather than failing cleanly or running.
    package var killedProcessBefore: Bool {
        ["aborted", "SIG", "hung"].contains { before.hasPrefix($0) }
    }

    /// The tiny models' tokens, changed by `change`.
    package static func tinyTokens(_ change: (inout [String]) -> Void) -> [String] {
        guard case .strings(var tokens)? = GGUFBuilder.tinyModel().value("tokenizer.ggml.tokens") else { return [] }
        change(&tokens)
        return tokens
    }
}
