import Foundation

/// The scheduler's side of the prompt cache on disk (``LocalModel/PromptCache``): an entry is
/// loaded into an idle sequence before a request is placed, and a sequence is written after a
/// request that evaluated a long prompt.
extension BatchScheduler {
    /// Prepares the request at the head of the queue with the disk entry that shares the longest
    /// prefix with its prompt, when that prefix is longer than any sequence holds: the entry is
    /// found and read on the store's queue (meanwhile this returns false and the request waits),
    /// then restored into an idle sequence, which the placement that follows reuses as any cached
    /// prefix. An entry llama.cpp refuses is removed.
    /// - Returns: whether the head of the queue may be placed now.
    func loadCachedPrompt() -> Bool {
        guard let promptCache else { return true }
        let next = waiting[0]
        let prompt = next.request.plan.promptTokens
        switch next.cacheLookup {
        case .notStarted:
            guard next.request.plan.reusesCache, next.request.plan.media.isEmpty, speculator == nil,
                  next.adapterScales == defaultAdapterScales, prompt.count > promptCache.settings.minimumTokens,
                  slots.contains(where: \.isIdle) else { return true }
            waiting[0].cacheLookup = .reading
            let id = next.id
            promptCache.lookUp(prompt, longerThan: reusablePrefix(of: prompt)) { [self] hit in
                executor.schedule { [self] in
                    // A request cancelled meanwhile has left the queue.
                    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
                    waiting[index].cacheLookup = .read(hit)
                    scheduleStep()
                }
            }
            return false
        case .reading:
            return false
        case .read(let hit):
            waiting[0].cacheLookup = .finished
            if let hit, hit.shared > reusablePrefix(of: prompt) {
                do {
                    _ = try restore(hit.state, tokens: hit.tokens)
                } catch {
                    promptCache.remove(hit.url)
                }
            }
            return true
        case .finished:
            return true
        }
    }

    /// Writes slot `index`'s sequence to the disk cache when its request evaluated at least the
    /// cache's minimum of prompt tokens (a prompt found whole in the cache is not written again),
    /// with the model's own adapter scales and every position still held.
    func keepPrompt(of index: Int, evaluated: Int) {
        guard let promptCache, speculator == nil, evaluated >= promptCache.settings.minimumTokens,
              slots[index].adapterScales == defaultAdapterScales else { return }
        let tokens = slots[index].tokens
        guard tokens.count >= promptCache.settings.minimumTokens, isWhole(index, tokens.count) else { return }
        promptCache.save(tokens: tokens, state: context.sequenceState(slots[index].id))
    }
}
