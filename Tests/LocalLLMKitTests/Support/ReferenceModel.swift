import Foundation
import LocalLLMKit

/// The reference model of the tests: Gemma 3 270M, a base model that scripts/bootstrap installs as
/// `models/gemma.gguf` beside the default chat model. Tests that compare against llama.cpp or
/// expect Gemma's vocabulary use it; tests of the default model ask for that one by name.
enum ReferenceModel {
    /// The Gemma file in the bootstrap's cache; tests fail (not skip) when it is missing.
    static func url() throws -> URL {
        var environment = ProcessInfo.processInfo.environment
        environment["LLMKIT_MODEL"] = nil
        let cache = LocalModel.defaultModelCandidates(environment: environment)[0].deletingLastPathComponent()
        let url = cache.appending(path: "gemma.gguf")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return url.resolvingSymlinksInPath()
    }
}
