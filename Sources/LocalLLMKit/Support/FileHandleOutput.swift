import Foundation

/// Unbuffered writes of text to a file handle, safe from any thread.
struct FileHandleOutput: Sendable {
    let handle: FileHandle

    static let standardError = FileHandleOutput(handle: .standardError)
    static let standardOutput = FileHandleOutput(handle: .standardOutput)

    /// Writes `text` as UTF-8, ignoring a closed pipe.
    func write(_ text: String) {
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
