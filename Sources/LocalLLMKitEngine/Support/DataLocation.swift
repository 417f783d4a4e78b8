import Foundation

/// Where LocalLLMKit keeps its data: the model library, memory plans, the CLI's history. One
/// resolver, so that `$LLMKIT_HOME` moves everything.
package enum DataLocation {
    /// `$LLMKIT_HOME`, else `${XDG_DATA_HOME:-~/.local/share}/llmkit` on Linux and
    /// `Application Support/LocalLLMKit` on Apple platforms (which may not exist yet).
    package static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["LLMKIT_HOME"], !home.isEmpty {
            return URL(filePath: home)
        }
        #if os(Linux)
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(filePath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
        return base.appending(path: "llmkit")
        #else
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser
        return support.appending(path: "LocalLLMKit")
        #endif
    }
}
