/// Where a waiting request stands with the prompt cache on disk (``LocalModel/PromptCache``):
/// the entry is found and read on the store's own queue, so that the sequences generating
/// meanwhile never wait for the disk; the request starts once the read has ended.
enum PromptCacheLookup {
    /// Not looked up yet.
    case notStarted
    /// The store is finding and reading an entry.
    case reading
    /// The read has ended: the entry to restore, or nil when there is none (or none valid).
    case read(PromptCacheStore.Hit?)
    /// Done with, or not applicable.
    case finished

    /// Whether the store is reading for it now.
    var isReading: Bool {
        if case .reading = self { true } else { false }
    }
}
