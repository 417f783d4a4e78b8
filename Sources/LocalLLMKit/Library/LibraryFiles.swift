import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations for the model library that never follow a symbolic link where that would
/// let a forged entry reach outside the library: kinds are read with `lstat`, trees are
/// removed with `unlinkat` relative to directories opened with `O_NOFOLLOW`, and small files
/// are read with a size bound.
enum LibraryFiles {
    /// What a path names, without following a final symbolic link.
    enum Kind: Equatable {
        case missing, file, directory, symbolicLink, other
    }

    /// The kind of the entry at `url` itself (a link is a link, whatever it points to).
    static func kind(at url: URL) -> Kind {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// The size of a regular file (not followed through a link), or 0.
    static func size(of url: URL) -> Int64 {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return 0 }
        return Int64(info.st_size)
    }

    /// The path with every symbolic link resolved (`realpath`), or nil when a component is
    /// missing, dangling or part of a loop.
    static func resolvedPath(_ url: URL) -> String? {
        guard let resolved = realpath(url.path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads a regular file of at most `limit` bytes, refusing links, devices and FIFOs
    /// (which could point anywhere, never end or block).
    static func readSmallFile(at url: URL, limit: Int) throws -> Data {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(url, "cannot open it") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ModelLibrary.Error.storageFailed(path: url.path, reason: "not a regular file")
        }
        guard info.st_size <= limit else {
            throw ModelLibrary.Error.storageFailed(path: url.path, reason: "larger than \(limit) bytes")
        }
        return try handle.read(upToCount: limit + 1) ?? Data()
    }

    /// Writes `data` to `url` atomically (see ``FileReplacement``): a crash leaves the old file or
    /// the new one, never half, and only a regular file is replaced.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        do {
            try FileReplacement.write(data, to: url)
        } catch .notRegularFile(let kind) {
            throw ModelLibrary.Error.storageFailed(path: url.path, reason: "it is \(kind), not a regular file")
        } catch .failed(let reason) {
            throw ModelLibrary.Error.storageFailed(path: url.path, reason: reason)
        }
    }

    /// Renames `source` to `destination` (same volume), leaving `errno` set on failure.
    /// - Returns: whether it was renamed.
    static func attemptRename(_ source: URL, to destination: URL) -> Bool {
        rename(source.path, destination.path) == 0
    }

    /// Renames `source` to `destination` (same volume). A link is renamed as a link.
    static func move(_ source: URL, to destination: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw failure(source, "cannot move it to \(destination.path)")
        }
    }

    /// Deletes `url` and, if it is a real directory, everything in it, never following a
    /// symbolic link: a link is removed, not what it points to. A missing path is no error.
    static func removeTree(at url: URL) throws {
        switch kind(at: url) {
        case .missing:
            return
        case .directory:
            let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                if errno == ENOENT { return }                  // removed meanwhile (another cleanup)
                throw failure(url, "cannot open it")
            }
            defer { close(descriptor) }
            try removeContents(of: descriptor, at: url, depth: 0)
            guard rmdir(url.path) == 0 || errno == ENOENT else { throw failure(url, "cannot remove it") }
        default:
            guard unlink(url.path) == 0 || errno == ENOENT else { throw failure(url, "cannot remove it") }
        }
    }

    /// Removes every entry of the open directory `descriptor`, depth first, by name relative
    /// to it (so a folder renamed or replaced by a link meanwhile is never entered).
    private static func removeContents(of descriptor: Int32, at url: URL, depth: Int) throws {
        guard depth < 32 else { throw ModelLibrary.Error.storageFailed(path: url.path, reason: "folders nested more than 32 deep") }
        for name in try entryNames(of: descriptor, at: url) {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else {
                    if errno == ENOENT { continue }
                    throw failure(url.appending(path: name), "cannot open it")
                }
                defer { close(child) }
                try removeContents(of: child, at: url.appending(path: name), depth: depth + 1)
                guard unlinkat(descriptor, name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
                    throw failure(url.appending(path: name), "cannot remove it")
                }
            } else {
                guard unlinkat(descriptor, name, 0) == 0 || errno == ENOENT else {
                    throw failure(url.appending(path: name), "cannot remove it")
                }
            }
        }
    }

    /// The names in an open directory, without `.` and `..`.
    private static func entryNames(of descriptor: Int32, at url: URL) throws -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw failure(url, "cannot list it")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The system's words for a file error (`No space left on device`), not Foundation's
    /// wrapper around them.
    static func describe(_ error: any Error) -> String {
        SystemErrorText.describe(error)
    }

    /// A library failure for `url` that ends with the system's reason (from `errno`).
    static func failure(_ url: URL, _ what: String) -> ModelLibrary.Error {
        .storageFailed(path: url.path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
