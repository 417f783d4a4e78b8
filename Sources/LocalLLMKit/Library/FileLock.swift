import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a file or folder, shared by every process and by
/// every ``ModelLibrary`` value of the same folder (each holds its own open file).
///
/// Waiting polls with `LOCK_NB` and sleeps between tries, so a wait of minutes (another
/// process's download) blocks no thread and ends when the task is cancelled. A lock file may
/// be deleted by its holder just before it unlocks (to leave no leftovers): whoever then gets
/// the lock checks that its file is still the one at the path, and otherwise starts again.
final class FileLock: Sendable {
    private let descriptor: Mutex<Int32?>
    /// The file or folder locked.
    let url: URL
    /// Whether another holder had to be waited for.
    let waited: Bool

    private init(descriptor: Int32, url: URL, waited: Bool) {
        self.descriptor = Mutex(descriptor)
        self.url = url
        self.waited = waited
    }

    deinit {
        release()
    }

    /// Locks `url`, creating it as an empty file when missing (never through a symbolic link).
    /// - Parameter whileWaiting: called about every 100 ms while another holder has it.
    /// - Throws: `CancellationError`, or ``ModelLibrary/Error/storageFailed(path:reason:)``.
    static func acquire(_ url: URL, whileWaiting: @Sendable () -> Void = {}) async throws -> FileLock {
        var waited = false
        while true {
            try Task.checkCancellation()
            let descriptor = open(url.path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw LibraryFiles.failure(url, "cannot open the lock file") }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let error = errno
                guard error == EWOULDBLOCK || error == EINTR else {
                    close(descriptor)
                    throw ModelLibrary.Error.storageFailed(path: url.path, reason: "cannot lock it: \(String(cString: strerror(error)))")
                }
                waited = true
                whileWaiting()
                do {
                    try await Task.sleep(for: .milliseconds(100))
                } catch {
                    close(descriptor)
                    throw error
                }
            }
            if isCurrent(descriptor, at: url) { return FileLock(descriptor: descriptor, url: url, waited: waited) }
            close(descriptor)                   // deleted by the previous holder: lock the new file
        }
    }

    /// Locks `url` (a file or folder; with `creating`, a file created when missing) only if
    /// nobody holds it; nil when someone does, or it cannot be opened.
    static func acquireIfFree(_ url: URL, creating: Bool = false) -> FileLock? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (creating ? O_CREAT : 0), 0o644)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, isCurrent(descriptor, at: url) else {
            close(descriptor)
            return nil
        }
        return FileLock(descriptor: descriptor, url: url, waited: false)
    }

    /// Unlocks (closing the file); later calls do nothing.
    func release() {
        descriptor.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    /// Deletes the lock file, then unlocks: for a lock that guarded something now finished.
    func releaseRemovingFile() {
        descriptor.withLock { descriptor in
            if let open = descriptor {
                if Self.isCurrent(open, at: url) { unlink(url.path) }
                close(open)
            }
            descriptor = nil
        }
    }

    /// Whether the open file is still the one at `url` (same device and inode).
    private static func isCurrent(_ descriptor: Int32, at url: URL) -> Bool {
        var held = stat(), current = stat()
        return fstat(descriptor, &held) == 0 && lstat(url.path, &current) == 0
            && held.st_dev == current.st_dev && held.st_ino == current.st_ino
    }
}
