import Foundation

/// The scheduler's side of the prompt cache on disk (``LocalModel/PromptCache``): an entry is
/// loaded into an idle sequence before a request is placed, and a sequence is written after a
/// request that evaluated a long prompt.
extension BatchScheduler {
    /// Loads the disk entry that shares the longest prefix with `request`'s prompt into an idle
    /// sequence, when that prefix is longer than any sequence holds; the placement that follows
    /// then reuses it as it reuses any cached prefix. An entry llama.cpp refuses is removed.
    func loadCachedPrompt(for request: GenerationRequest, adapterScales: [Float]) {
        guard let promptCache, request.plan.reusesCache, request.plan.media.isEmpty, speculator == nil,
              adapterScales == defaultAdapterScales, slots.contains(where: \.isIdle) else { return }
        let prompt = request.plan.promptTokens
        guard prompt.count > promptCache.settings.minimumTokens,
              let best = promptCache.bestEntry(for: prompt, longerThan: reusablePrefix(of: prompt)),
              let state = promptCache.state(at: best.url, tokens: best.tokens) else { return }
        do {
            _ = try restore(state, tokens: best.tokens)
        } catch {
            promptCache.remove(best.url)
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
