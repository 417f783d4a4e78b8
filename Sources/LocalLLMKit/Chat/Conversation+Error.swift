import Foundation

extension Conversation {
    /// What can go wrong with a conversation's configuration, history, tools or saved file.
    ///
    /// Each case names the file, option or value at fault; `errorDescription` says it in one line.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// A ``Configuration`` property has a value that cannot work; `name` is its property path.
        case invalidConfiguration(name: String, reason: String)
        /// A saved conversation file is missing, damaged, truncated or not one at all.
        case invalidFile(path: String, reason: String)
        /// A saved conversation file belongs to another model or other settings.
        case incompatibleFile(path: String, reason: String)
        /// ``Conversation/save(to:)`` was given a path where something other than a regular file
        /// is (a symbolic link, a folder, a FIFO, a device such as `/dev/null`): it is left alone.
        case notRegularFile(path: String, kind: String)
        /// A transcript given to ``Conversation/init(model:transcript:tools:configuration:)`` has a
        /// message at `index` that cannot be part of a conversation; `reason` says why.
        case invalidTranscript(index: Int, reason: String)
        /// A tool is unusable: a bad or repeated name, or arguments that have no schema.
        case invalidTool(name: String, reason: String)
        /// The ``ToolChoice`` of a turn names no tool the conversation has, or requires a call
        /// from a conversation without tools.
        case invalidToolChoice(reason: String)
    }
}

extension Conversation.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let name, let reason):
            return "invalid value for \(name): \(reason)"
        case .invalidFile(let path, let reason):
            return "invalid conversation file \(path): \(reason)"
        case .incompatibleFile(let path, let reason):
            return "conversation file \(path) does not fit: \(reason)"
        case .notRegularFile(let path, let kind):
            return "will not save over \(path): it is \(kind), not a regular file"
        case .invalidTranscript(let index, let reason):
            return "transcript message \(index): \(reason)"
        case .invalidTool(let name, let reason):
            return "invalid tool \(name): \(reason)"
        case .invalidToolChoice(let reason):
            return "invalid tool choice: \(reason)"
        }
    }
}
