import Foundation

/// The prompt cache's folder for one model key (see ``LocalModel/PromptCache``): finds the entry
/// that shares the longest prefix with a prompt, reads it checked, writes new entries atomically
/// and keeps the whole folder under its size bound. Reads and writes run on queues of their own,
/// so that a step never waits for the disk.
final class PromptCacheStore: @unchecked Sendable {
    let settings: LocalModel.PromptCache
    let expectation: PromptCacheEntry.Expectation
    /// The key's own subfolder: entries of other keys are never opened.
    let folder: URL
    private let writer = DispatchQueue(label: "llmkit.prompt-cache.writer", qos: .utility)
    /// Finds and reads entries, away from the scheduler's thread.
    private let reader = DispatchQueue(label: "llmkit.prompt-cache.reader", qos: .userInitiated)

    /// An entry found for a prompt and read whole.
    struct Hit: Sendable {
        var url: URL
        var tokens: [Int32]
        /// How many of the prompt's tokens it holds.
        var shared: Int
        var state: [UInt8]
    }

    init(settings: LocalModel.PromptCache, expectation: PromptCacheEntry.Expectation) {
        self.settings = settings
        self.expectation = expectation
        folder = settings.folder.appending(path: String(SHA256Digest.hex(of: Data(expectation.key.utf8)).prefix(24)),
                                           directoryHint: .isDirectory)
    }

    /// The entry that shares the longest prefix with `prompt`, if that prefix is at least
    /// ``LocalModel/PromptCache/minimumTokens`` long and longer than `held` (what the model holds
    /// already), with its tokens and the length of the shared prefix. Files whose header is not
    /// this key's are removed.
    func bestEntry(for prompt: [Int32], longerThan held: Int) -> (url: URL, tokens: [Int32], shared: Int)? {
        var best: (url: URL, tokens: [Int32], shared: Int)?
        for url in entryFiles() {
            guard let tokens = PromptCacheEntry.tokens(at: url, expecting: expectation) else {
                remove(url)
                continue
            }
            // The prompt's last token is decoded again for its logits, as with cached sequences.
            var shared = 0
            let limit = min(tokens.count, prompt.count - 1)
            while shared < limit && tokens[shared] == prompt[shared] { shared += 1 }
            if shared > (best?.shared ?? 0) { best = (url, tokens, shared) }
        }
        guard let best, best.shared >= settings.minimumTokens, best.shared > held else { return nil }
        return best
    }

    /// Finds the entry for `prompt` (``bestEntry(for:longerThan:)``) and reads it
    /// (``state(at:tokens:)``) on the store's reading queue, then calls `done` there with it, or
    /// with nil when there is none or it is not valid.
    func lookUp(_ prompt: [Int32], longerThan held: Int, then done: @escaping @Sendable (Hit?) -> Void) {
        reader.async { [self] in
            guard let best = bestEntry(for: prompt, longerThan: held), let state = state(at: best.url, tokens: best.tokens) else {
                return done(nil)
            }
            done(Hit(url: best.url, tokens: best.tokens, shared: best.shared, state: state))
        }
    }

    /// The state of the entry at `url`, checked whole and holding exactly `tokens`; nil (and the
    /// file removed) when it is not valid. A used entry's time is renewed, for eviction.
    func state(at url: URL, tokens: [Int32]) -> [UInt8]? {
        guard let entry = PromptCacheEntry.read(at: url, expecting: expectation), entry.tokens == tokens else {
            remove(url)
            return nil
        }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
        return entry.state
    }

    /// Removes the entry at `url` (llama.cpp refused its state, or it is not valid), if it is a
    /// regular file.
    func remove(_ url: URL) {
        if Self.isRegularFile(url) { try? FileManager.default.removeItem(at: url) }
    }

    /// Writes an entry for `tokens` and `state` in the background: to a temporary file in the
    /// folder, renamed over the entry's name (so that a reader sees a whole file or none, and two
    /// writers of the same entry leave one whole entry), then removes the entries used least
    /// recently while the folder is over its bound.
    func save(tokens: [Int32], state: [UInt8], then done: (@Sendable () -> Void)? = nil) {
        let entry = PromptCacheEntry(key: expectation.key, tokens: tokens, state: state)
        writer.async { [self] in
            defer { done?() }
            guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return }
            let name = SHA256Digest.hex(of: tokens.withUnsafeBytes { Data($0) }).prefix(32)
            let url = folder.appending(path: "\(name).prompt")
            var status = stat()
            if lstat(url.path, &status) == 0, status.st_mode & S_IFMT != S_IFREG { return }    // never replace what is not a file
            let temporary = folder.appending(path: ".\(UUID().uuidString).partial")
            guard (try? entry.encoded().write(to: temporary)) != nil else {
                try? FileManager.default.removeItem(at: temporary)
                return
            }
            if rename(temporary.path, url.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
            evict()
        }
    }

    /// Waits for the writes asked for so far, blocking the caller.
    func waitForWrites() {
        writer.sync {}
    }

    /// Waits for the writes asked for so far, without blocking a thread.
    func writesFinished() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in writer.async { done.resume() } }
    }

    /// Removes the least recently used entries of the whole cache folder (every key) while it is
    /// over ``LocalModel/PromptCache/maximumBytes``.
    private func evict() {
        let entries = PromptCacheFolder.files(under: settings.folder, suffix: ".prompt")
        var total = entries.reduce(Int64(0)) { $0 + $1.bytes }
        for entry in entries.sorted(by: { $0.used < $1.used }) where total > Int64(settings.maximumBytes) {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.bytes
        }
    }

    /// The entries of this key: regular files only (a link or a folder of that name is neither
    /// read nor removed), at most ``maximumEntriesRead`` of them.
    private func entryFiles() -> [URL] {
        PromptCacheFolder.files(in: folder, suffix: ".prompt").prefix(Self.maximumEntriesRead).map(\.url)
    }

    /// The most entries whose headers one lookup reads: a folder filled with small files must not
    /// make every request slow.
    static let maximumEntriesRead = 256

    private static func isRegularFile(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
