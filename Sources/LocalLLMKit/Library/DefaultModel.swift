import Foundation

extension LocalModel {
    /// The default embedding model: the file that `$LLMKIT_EMBEDDING_MODEL` names, else
    /// `embedding.gguf` (all-MiniLM-L6-v2) beside the default model in the bootstrap's cache.
    /// - Throws: ``ModelLibrary/Error/noDefaultModel(searched:)`` when no such file exists.
    public static func defaultEmbeddingModelURL(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        if let explicit = environment["LLMKIT_EMBEDDING_MODEL"], !explicit.isEmpty {
            return URL(filePath: explicit)       // named explicitly: let loading report a missing file
        }
        var cacheOnly = environment
        cacheOnly["LLMKIT_MODEL"] = nil
        let candidate = defaultModelCandidates(environment: cacheOnly)[0]
            .deletingLastPathComponent().appending(path: "embedding.gguf")
        guard FileManager.default.fileExists(atPath: candidate.path) else {
            throw ModelLibrary.Error.noDefaultModel(searched: [candidate.path])
        }
        return candidate.resolvingSymlinksInPath()
    }

    /// The default model that `scripts/bootstrap` installed (SmolLM2-135M-Instruct), or the
    /// file that `$LLMKIT_MODEL` names.
    /// - Throws: ``ModelLibrary/Error/noDefaultModel(searched:)`` when no such file exists.
    public static func defaultModelURL(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        let candidates = defaultModelCandidates(environment: environment)
        if let explicit = environment["LLMKIT_MODEL"], !explicit.isEmpty {
            return candidates[0]       // named explicitly: let loading report a missing file
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw ModelLibrary.Error.noDefaultModel(searched: candidates.map(\.path))
        }
        return found.resolvingSymlinksInPath()
    }
}
