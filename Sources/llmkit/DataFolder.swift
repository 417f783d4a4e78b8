import Foundation

/// Where the CLI keeps state between runs, such as the chat history:
/// `$LLMKIT_DATA`, else `$XDG_DATA_HOME/llmkit`, else `~/.local/share/llmkit`.
enum DataFolder {
    /// The folder (which may not exist yet).
    static func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let folder = environment["LLMKIT_DATA"], !folder.isEmpty {
            return URL(filePath: folder, directoryHint: .isDirectory)
        }
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(filePath: $0, directoryHint: .isDirectory) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
        return base.appending(path: "llmkit", directoryHint: .isDirectory)
    }

    /// The file of `llmkit chat`'s line history.
    static func chatHistory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        url(environment: environment).appending(path: "chat_history")
    }
}
