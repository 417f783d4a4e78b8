import Foundation

/// A file named on the command line that cannot be read or understood; `option` is the flag
/// that named it.
struct InputFileError: LocalizedError {
    let option: String
    let reason: String

    var errorDescription: String? { "invalid value for \(option): \(reason)" }
}
