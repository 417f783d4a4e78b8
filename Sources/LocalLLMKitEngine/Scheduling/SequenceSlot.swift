/// One sequence of the shared context: what its KV cache holds, and whether a request uses it.
struct SequenceSlot {
    /// llama.cpp's sequence id.
    let id: Int32
    /// The tokens whose keys and values the sequence holds, from position 0 on.
    var tokens: [Int32] = []
    /// The request generating on it, if any.
    var generation: ActiveGeneration?
    /// When it was last used (a counter), for least-recently-used eviction.
    var lastUsed: UInt64 = 0
    /// The adapter scales its cache was computed with, and its request decodes with: another
    /// request reuses its tokens only with the same scales.
    var adapterScales: [Float] = []
    /// The last step that decoded for it (a counter): requests of other adapter scales take
    /// turns by it.
    var lastStep: UInt64 = 0

    var isIdle: Bool { generation == nil }

    /// How many leading tokens of `prompt` the sequence holds, leaving the last one to be
    /// decoded again for its logits.
    func reusablePrefix(of prompt: [Int32]) -> Int {
        var count = 0
        let limit = min(tokens.count, prompt.count - 1)
        while count < limit && tokens[count] == prompt[count] { count += 1 }
        return count
    }
}

/// Where a new request goes, and how much of its prompt is already in the cache.
struct SlotPlacement: Equatable {
    /// The slot it will generate on.
    var slot: Int
    /// Another slot whose first ``cachedTokens`` tokens are shared into ``slot``, if any.
    var source: Int?
    /// Prompt tokens that need not be evaluated.
    var cachedTokens: Int

    /// Chooses a slot for `prompt` among `slots`, as llama-server does with `cache_prompt`:
    /// the longest cached prefix of any sequence (idle or busy) is reused. An idle sequence
    /// that holds nothing else is taken as it is. So is an idle sequence that holds the whole
    /// prompt and more (the same request again: its old answer is what this one replaces) when
    /// no sequence is empty; a copy would cost another conversation its cache. Otherwise the
    /// least recently used idle sequence (an empty one first) takes a shared copy of the prefix,
    /// so that the cache of another conversation survives; empty sequences go in id order. Nil
    /// when no sequence is idle.
    /// - Parameter usable: whether a slot's first `n` tokens are still whole in the cache
    ///   (a sliding window can have dropped them).
    static func choose(for prompt: [Int32], in slots: [SequenceSlot], reusingCache: Bool,
                       usable: (Int, Int) -> Bool) -> SlotPlacement? {
        let idle = slots.indices.filter { slots[$0].isIdle }
        guard !idle.isEmpty else { return nil }
        var best: (slot: Int, count: Int)?
        if reusingCache {
            for index in slots.indices {
                let count = slots[index].reusablePrefix(of: prompt)
                if count > (best?.count ?? 0), usable(index, count) { best = (index, count) }
            }
        }
        let anyEmpty = idle.contains { slots[$0].tokens.isEmpty }
        if let best, slots[best.slot].isIdle,
           slots[best.slot].tokens.count == best.count || idle == [best.slot]
            || (!anyEmpty && slots[best.slot].tokens.starts(with: prompt)) {
            return SlotPlacement(slot: best.slot, source: nil, cachedTokens: best.count)
        }
        let candidates = idle.filter { $0 != best?.slot }
        // Empty sequences in id order: requests that start together then hold consecutive ids,
        // which llama.cpp's micro-batches over a KV stream per sequence take as one run.
        func order(_ index: Int) -> (Int, UInt64) {
            slots[index].tokens.isEmpty ? (0, UInt64(slots[index].id)) : (1, slots[index].lastUsed)
        }
        let target = candidates.min { order($0) < order($1) }!
        guard let best else { return SlotPlacement(slot: target, source: nil, cachedTokens: 0) }
        return SlotPlacement(slot: target, source: best.slot, cachedTokens: best.count)
    }
}
