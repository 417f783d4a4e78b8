import Foundation

// Where the bootstrap scripts put the default model: the engine knows it so that anything built
// on the engine alone (its tests, a tool of its own) finds the same files as the library.
extension LocalModel {
    /// Where the default model is looked for: `$LLMKIT_MODEL` when set, else
    /// `default.gguf` in the bootstrap's cache (`$LLMKIT_CACHE`, else
    /// `$XDG_CACHE_HOME/llmkit`, else `~/.cache/llmkit`), under `models/`.
    public static func defaultModelCandidates(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [URL] {
        if let explicit = environment["LLMKIT_MODEL"], !explicit.isEmpty {
            return [URL(filePath: explicit)]
        }
        let cache: URL
        if let root = environment["LLMKIT_CACHE"], !root.isEmpty {
            cache = URL(filePath: root)
        } else if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            cache = URL(filePath: xdg).appending(path: "llmkit")
        } else {
            cache = FileManager.default.homeDirectoryForCurrentUser.appending(path: ".cache/llmkit")
        }
        return [cache.appending(path: "models/default.gguf")]
    }
}
