import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a small text file that a user named (a prompt, a schema, a grammar, a chat template, a
/// key): a regular file only (a FIFO would block, `/dev/zero` never ends, a folder is no text),
/// within a size bound, with a reason in plain words when it cannot be read.
package enum UserFile {
    /// Why a file could not be read, in words ("no such file", "it is a folder", …).
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// The file's text (UTF-8).
    /// - Throws: ``Failure``.
    package static func text(at path: String, limit: Int = 64 << 20) throws(Failure) -> String {
        let data = try read(at: path, limit: limit)
        guard let text = String(validating: data, as: UTF8.self) else { throw Failure(reason: "it is not UTF-8 text") }
        return text
    }

    /// The file's bytes.
    /// - Throws: ``Failure``.
    package static func read(at path: String, limit: Int = 64 << 20) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(reason: systemReason()) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(reason: systemReason()) }
        if let kind = FileReplacement.kind(of: info.st_mode) { throw Failure(reason: "it is \(kind), not a regular file") }
        guard info.st_size <= limit else { throw Failure(reason: "it has \(info.st_size) bytes; at most \(limit) are read") }
        do {
            return try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw Failure(reason: systemReason())
        }
    }

    /// The system's reason for the last failure, in lower case ("no such file or directory").
    private static func systemReason() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}
