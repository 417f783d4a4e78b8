import Foundation

/// What the prompt cache's folder holds, for `llmkit cache`: every entry of every model key, read
/// from the headers alone, and clearing them. Only regular files named like entries are read or
/// removed.
package enum PromptCacheFolder {
    /// One entry: where it is, how many tokens it holds, its size and when it was last used.
    package struct Entry: Sendable {
        package var url: URL
        package var tokenCount: Int
        package var bytes: Int64
        package var lastUsed: Date
    }

    /// Where the command line keeps it: `$LLMKIT_HOME/cache/prompts`.
    package static func standard() -> URL {
        DataLocation.folder().appending(path: "cache/prompts", directoryHint: .isDirectory)
    }

    /// The entries under `folder`, most recently used first; files that are not entries are left out.
    package static func entries(in folder: URL) -> [Entry] {
        files(in: folder, suffix: ".prompt").compactMap { url, bytes, date in
            PromptCacheEntry.tokenCount(at: url).map { Entry(url: url, tokenCount: $0, bytes: bytes, lastUsed: date) }
        }.sorted { $0.lastUsed > $1.lastUsed }
    }

    /// Removes every entry under `folder` (and writes left unfinished), then the key folders
    /// left empty. Returns how many files and bytes went.
    package static func clear(_ folder: URL) -> (files: Int, bytes: Int64) {
        var removed = (files: 0, bytes: Int64(0))
        for (url, bytes, _) in files(in: folder, suffix: ".prompt") + files(in: folder, suffix: ".partial") {
            if (try? FileManager.default.removeItem(at: url)) != nil { removed = (removed.files + 1, removed.bytes + bytes) }
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            rmdir(folder.appending(path: name).path)     // only an empty folder; never a link or a file
        }
        return removed
    }

    /// The regular files one level below `folder`'s key folders whose names end in `suffix`.
    private static func files(in folder: URL, suffix: String) -> [(URL, Int64, Date)] {
        var found: [(URL, Int64, Date)] = []
        for key in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let keyFolder = folder.appending(path: key)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: keyFolder.path)) ?? [] where name.hasSuffix(suffix) {
                let url = keyFolder.appending(path: name)
                var status = stat()
                guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                let used = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast
                found.append((url, Int64(status.st_size), used))
            }
        }
        return found
    }
}
