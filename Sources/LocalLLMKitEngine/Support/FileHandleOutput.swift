import Foundation

/// Unbuffered writes of text to a file handle, safe from any thread.
package struct FileHandleOutput: Sendable {
    package let handle: FileHandle

    package static let standardError = FileHandleOutput(handle: .standardError)
    package static let standardOutput = FileHandleOutput(handle: .standardOutput)

    /// Writes `text` as UTF-8, ignoring a closed pipe.
    package func write(_ text: String) {
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
