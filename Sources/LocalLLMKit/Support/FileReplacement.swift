import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file whole or not at all, and only where a regular file (or nothing) is.
///
/// The bytes go to a temporary file in the same folder (created exclusively, never through a
/// link), are flushed to disk, then renamed over the destination: a crash leaves the old file or
/// the new one. Before the rename, the destination is looked at without following links; a
/// symbolic link, a folder, a FIFO, a socket or a device (`/dev/null`) is refused, since replacing
/// it would break what it is (as root, a system's `/dev/null`) or silently write elsewhere.
enum FileReplacement {
    /// Why a file could not be written.
    enum Failure: Error, Equatable {
        /// Something other than a regular file is at the path: `kind` says what.
        case notRegularFile(kind: String)
        /// The system refused a step: `reason` says which and why.
        case failed(reason: String)
    }

    /// What is at `url` itself (a link is a link), in words; nil for a regular file or nothing.
    static func obstacle(at url: URL) -> String? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return kind(of: info.st_mode)
    }

    /// A file mode's kind in words ("a symbolic link", "a character device"…); nil for a regular file.
    static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return "a symbolic link"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "not a regular file"
        }
    }

    /// Replaces (or creates) the regular file at `url` with `data`.
    /// - Throws: ``Failure``.
    static func write(_ data: Data, to url: URL, permissions: mode_t = 0o644) throws(Failure) {
        if let kind = obstacle(at: url) { throw .notRegularFile(kind: kind) }
        let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw .failed(reason: "cannot create a file in its folder: \(Self.systemError())") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary.path)
            throw .failed(reason: "cannot write it: \(SystemErrorText.describe(error))")
        }
        // Looked at again just before the rename: what appeared meanwhile is not replaced either.
        if let kind = obstacle(at: url) {
            unlink(temporary.path)
            throw .notRegularFile(kind: kind)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = Self.systemError()
            unlink(temporary.path)
            throw .failed(reason: "cannot rename the new file to it: \(reason)")
        }
    }

    private static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
