import Foundation
import LocalLLMKit

/// Where the CLI keeps state between runs, such as the chat history: the folder that holds the
/// model library (`$LLMKIT_HOME`, else `${XDG_DATA_HOME:-~/.local/share}/llmkit`), so that one
/// variable moves everything.
enum DataFolder {
    /// The folder (which may not exist yet).
    static func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        ModelLibrary.defaultRoot(environment: environment).deletingLastPathComponent()
    }

    /// The file of `llmkit chat`'s line history.
    static func chatHistory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        url(environment: environment).appending(path: "chat_history")
    }
}
