/// Grammar drafts (jump-forward): a request with an output grammar drafts the text the grammar
/// allows next (``ActiveGeneration/grammarDraft(maximum:)``), and the step decodes it after the
/// pending token, as it decodes a speculator's draft (``verify(_:of:decoded:)``). So the output
/// is exactly what one token a step gives; the draft only saves steps where the draws agree.
///
/// A checked row costs a good part of a step on a CPU with few cores and next to nothing on a
/// GPU, and a draft's whitespace is a guess, so a ``DraftPlanner`` of its own decides how much
/// of each draft a step checks, from the steps' measured costs and each sequence's acceptance.
/// What a step leaves unchecked is kept as a shadow and compared with the tokens generated
/// instead, so that a sequence whose drafts the planner stopped checking can win them back.
extension BatchScheduler {
    /// The most tokens of a grammar draft in one step.
    static let maximumGrammarDraft = 8
    /// How doubtful the grammar planner starts (``DraftPlanner/init(sequenceCount:maximumDraft:maximumRows:doubt:)``):
    /// small models often write a key in other tokens than the draft's, and a rejected row costs
    /// a good part of a step on a CPU; the shadows show how often drafts are right, for free.
    static let grammarDraftDoubt = 3.0
    /// Below this many cells a sequence's single-token decodes on the CPU attend as a batch's
    /// rows do: llama.cpp pads the cells attended to by 256, and from 512 on ggml's CPU flash
    /// attention splits one query's cells across threads (docs/PERFORMANCE.md, "Bit-identical
    /// logits"), so no batch then computes what one token alone does.
    static let exactCells = 256

    /// Grammar drafts for the generating sequences `indices` whose requests have an output
    /// grammar and draft (``ActiveGeneration/draftsFromGrammar``), within `room` batch rows
    /// (less what they take), each request's token limit and, for a request generating alone,
    /// ``exactVerificationRows`` and ``exactCells`` (so that greedy and seeded draws are those of
    /// one token a step: the CPU then computes a batch's rows as it computes one token); keyed
    /// by sequence.
    func grammarDrafts(for indices: [Int], room: inout Int) -> [Int: Draft] {
        guard draftsFromGrammar else { return [:] }
        observeShadowDrafts(of: indices, in: &grammarShadows, planner: &grammarPlanner)
        var candidates: [(index: Int, tokens: [Int32])] = []
        for index in indices {
            guard let generation = slots[index].generation, generation.draftsFromGrammar else { continue }
            // Unknown exact rows (not probed yet, see ``exactRowsProbe``) allow such a request no draft.
            let exactRows = exactVerificationRows ?? (exactRowsProbe == nil ? Int.max : 1)
            let preserves = indices.count == 1 && (exactVerificationRows != nil || exactRowsProbe != nil)
            // The draft's last position (after the pending token's) stays below exactCells.
            let exact = preserves ? min(exactRows - 1, Self.exactCells - 1 - (slots[index].tokens.count + 1)) : Int.max
            let tokens = generation.grammarDraft(maximum: min(Self.maximumGrammarDraft, generation.remainingTokens - 1, exact))
            if !tokens.isEmpty { candidates.append((index, tokens)) }
        }
        guard !candidates.isEmpty else { return [:] }
        let lengths = grammarPlanner?.lengths(for: candidates.map { (Int(slots[$0.index].id), $0.tokens.count) }, rows: indices.count)
            ?? candidates.map(\.tokens.count)
        var drafts: [Int: Draft] = [:]
        for (candidate, planned) in zip(candidates, lengths) {
            let sequence = slots[candidate.index].id
            let length = min(planned, max(room, 0))
            if length < candidate.tokens.count, grammarShadows[sequence] == nil {
                grammarShadows[sequence] = ShadowDraft(start: slots[candidate.index].tokens.count + 1, tokens: candidate.tokens,
                                                       checked: length)
            }
            guard length > 0 else { continue }
            drafts[Int(sequence)] = Draft(tokens: Array(candidate.tokens.prefix(length)), fromGrammar: true)
            room -= length
        }
        return drafts
    }
}
