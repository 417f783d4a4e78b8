import Foundation

extension LocalModel {
    /// Evaluated prompt prefixes kept on disk, so that another process (a second `llmkit run`, a
    /// restarted server) starts from a long system prompt or document already evaluated.
    ///
    /// After a request whose sequence holds at least ``minimumTokens`` tokens, the sequence's KV
    /// cache is written to ``folder`` (in the background, to a temporary file renamed into place),
    /// keyed by the model file, its adapters and the cache's number formats. A later request on a
    /// model with the same key loads the entry that shares the longest prefix with its prompt
    /// before evaluating, when that prefix is longer than what the model already holds. Entries
    /// are checked whole before use (their format, key, token ids, sizes and a SHA-256 of their
    /// bytes); one that fails is removed, never trusted. The folder is kept under
    /// ``maximumBytes`` by removing the entries used least recently.
    public struct PromptCache: Sendable, Hashable {
        /// Where the entries live (created when missing).
        public var folder: URL
        /// The most bytes the folder's entries may take together.
        public var maximumBytes: Int
        /// The fewest tokens a sequence must hold to be written, and a prompt must share with an
        /// entry for it to be read: shorter prefixes evaluate faster than they load.
        public var minimumTokens: Int

        /// Creates the settings; 2 GiB and 256 tokens by default.
        public init(folder: URL, maximumBytes: Int = 2 << 30, minimumTokens: Int = 256) {
            self.folder = folder
            self.maximumBytes = maximumBytes
            self.minimumTokens = minimumTokens
        }

        /// The cache that `llmkit run`, `chat` and `serve` use by default: `cache/prompts` in
        /// the data folder (`$LLMKIT_HOME`, else `$XDG_DATA_HOME/llmkit` or
        /// `~/.local/share/llmkit` on Linux, Application Support on Apple platforms), with the
        /// default bounds. A library leaves its disk alone unless asked, so a model uses it only
        /// when its configuration names it; naming this one shares entries with the command line.
        public static var standard: PromptCache {
            PromptCache(folder: PromptCacheFolder.standard())
        }
    }
}

extension LocalModel {
    /// Waits until the prompt cache's entries written so far are on disk: they are written in
    /// the background, so a process that ends right after a request calls this first.
    public func flushPromptCache() async {
        let store = batchScheduler?.promptCache
        await store?.writesFinished()
    }

    /// What an entry of the prompt cache must have been computed with to be this model's: the
    /// model file (its fingerprint), the adapters and control vectors with their scales, the KV
    /// cache's number formats and fused attention (which lays out its values), and the cache's
    /// stream count (llama.cpp restores a sequence's state only into a cache of as many streams:
    /// one process's entries would otherwise fail, and be removed, in another's).
    func promptCacheKey(streams: Int) throws -> String {
        let fingerprint = try ModelFingerprint(file)
        let weights = configuration.weights
        let adapters = weights.adapters.map { "\($0)" }.joined(separator: ";")
        let vectors = weights.controlVectors.map { "\($0)" }.joined(separator: ";")
        return "llmkit-prompt-cache-1 \(fingerprint.headerDigest) \(fingerprint.fileSize) k=\(configuration.context.keyCacheType) "
            + "v=\(configuration.context.valueCacheType) fa=\(configuration.context.flashAttention) streams=\(streams) "
            + "adapters=[\(adapters)] vectors=[\(vectors)] layers=\(weights.controlVectorLayers.map { "\($0)" } ?? "all")"
    }

    /// The store of `settings` for this model's context of `streams` streams.
    func makePromptCacheStore(_ settings: PromptCache, streams: Int = 1) throws -> PromptCacheStore {
        PromptCacheStore(settings: settings, expectation: .init(key: try promptCacheKey(streams: streams),
                                                                  vocabularySize: tokenizer.vocabularySize,
                                                                  maximumTokens: contextLength, maximumStateBytes: maximumCacheStateBytes))
    }
}
