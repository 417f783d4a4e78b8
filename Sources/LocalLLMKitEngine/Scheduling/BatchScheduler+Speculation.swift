/// Speculative decoding in the scheduler's steps: a generating sequence's pending token is
/// decoded with a draft after it, every position with logits; the request's own sampler then
/// draws at each position in turn, as it would have one step after another, and the draft
/// counts as far as the draws agree with it. The first draw that differs is the next pending
/// token, and the cache drops the rest of the draft. So every token is one the request would
/// have drawn without speculation, and its text (stop sequences, end of generation, the token
/// limit) is handled token by token: a request that ends inside a draft ends at the same token.
extension BatchScheduler {
    /// A draft decoded in this step for one sequence: its tokens follow the pending token at `batchIndex`.
    struct Speculated {
        var draft: [Int32]
        var batchIndex: Int
    }

    /// Drafts for the generating sequences `indices`, within the batch's room (each sequence's
    /// pending token first) and each request's token and context limits, for the requests whose
    /// options speculate (``CompletionOptions/speculates``). A sequence without
    /// a draft this step is absent. A failing draft model costs only this step's drafts.
    func draft(for indices: [Int]) -> [Int: [Int32]] {
        guard let speculator else { return [:] }
        var room = context.batchSize - indices.count
        var requests: [Speculator.Request] = []
        for index in indices {
            guard room > 0, let generation = slots[index].generation, let token = generation.pendingToken,
                  generation.request.plan.options.speculates else { continue }
            let maximum = min(speculator.maximumDraft, room, generation.remainingTokens - 1)
            guard maximum > 0 else { continue }
            requests.append(.init(sequence: slots[index].id, history: slots[index].tokens, lastToken: token, maximum: maximum))
            room -= maximum
        }
        guard let drafts = try? speculator.drafts(for: requests) else { return [:] }
        var result: [Int: [Int32]] = [:]
        for (request, draft) in zip(requests, drafts) where !draft.isEmpty {
            result[Int(request.sequence)] = draft
        }
        return result
    }

    /// Draws along `speculation`'s positions for slot `index` after the step decoded `entries`,
    /// keeps the agreeing part of the draft in the cache and drops the rest.
    func verify(_ speculation: Speculated, of index: Int, decoded entries: [InferenceContext.Entry]) {
        guard let generation = slots[index].generation else { return }
        slots[index].tokens.append(entries[speculation.batchIndex].token)
        var accepted = 0
        defer {
            context.removePositions(of: slots[index].id, from: slots[index].tokens.count)
            generation.recordDraft(drafted: speculation.draft.count, accepted: accepted)
            speculator?.accept(accepted, for: slots[index].id)
            if generation.outcome != nil { release(index) }
        }
        guard generation.outcome == nil else { return }     // its text ended it: a stop sequence, or balanced JSON
        for row in 0...speculation.draft.count {
            let batchIndex = Int32(speculation.batchIndex + row)
            do {
                if generation.samplesFromLogits, let logits = context.logits(at: batchIndex) {
                    try generation.sample(logits: logits, vocabularySize: tokenizer.vocabularySize)
                } else {
                    try generation.sample(at: batchIndex, in: context)
                }
            } catch {
                return fail(index, error)
            }
            guard generation.outcome == nil, row < speculation.draft.count,
                  generation.pendingToken == speculation.draft[row] else { return }
            accepted += 1
            slots[index].tokens.append(speculation.draft[row])
        }
    }
}
