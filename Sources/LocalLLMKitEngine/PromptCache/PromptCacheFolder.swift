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
        files(under: folder, suffix: ".prompt").compactMap { file in
            PromptCacheEntry.tokenCount(at: file.url).map { Entry(url: file.url, tokenCount: $0, bytes: file.bytes, lastUsed: file.used) }
        }.sorted { $0.lastUsed > $1.lastUsed }
    }

    /// Removes every entry under `folder` (and writes left unfinished), then the key folders
    /// left empty. Returns how many files and bytes went.
    package static func clear(_ folder: URL) -> (files: Int, bytes: Int64) {
        var removed = (files: 0, bytes: Int64(0))
        for file in files(under: folder, suffix: ".prompt") + files(under: folder, suffix: ".partial") {
            if (try? FileManager.default.removeItem(at: file.url)) != nil { removed = (removed.files + 1, removed.bytes + file.bytes) }
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            rmdir(folder.appending(path: name).path)     // only an empty folder; never a link or a file
        }
        return removed
    }

    /// The regular files of every key folder under `root` whose names end in `suffix`.
    static func files(under root: URL, suffix: String) -> [(url: URL, bytes: Int64, used: Date)] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).flatMap { key in
            files(in: root.appending(path: key), suffix: suffix)
        }
    }

    /// The regular files of `folder` whose names end in `suffix` (links, folders and devices of
    /// such names are left out), with their sizes and modification dates.
    static func files(in folder: URL, suffix: String) -> [(url: URL, bytes: Int64, used: Date)] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(suffix) }.compactMap { name in
            let url = folder.appending(path: name)
            var status = stat()
            guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            let used = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast
            return (url, Int64(status.st_size), used)
        }
    }
}
