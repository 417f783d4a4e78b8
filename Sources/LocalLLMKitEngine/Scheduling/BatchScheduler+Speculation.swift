/// Speculative decoding in the scheduler's steps: a generating sequence's pending token is
/// decoded with a draft after it, every position with logits; the request's own sampler then
/// draws at each position in turn, as it would have one step after another, and the draft
/// counts as far as the draws agree with it. The first draw that differs is the next pending
/// token, and the cache drops the rest of the draft. So every token is one the request would
/// have drawn without speculation, and its text (stop sequences, end of generation, the token
/// limit) is handled token by token: a request that ends inside a draft ends at the same token.
///
/// Drafts come from the speculator, or from a request's output grammar: the text the grammar
/// allows next (a JSON Schema's keys and punctuation), which needs no drafting model and which
/// the draws agree with whenever the model tokenizes it as the draft does.
extension BatchScheduler {
    /// Tokens to decode after a sequence's pending token in one step.
    struct Draft {
        var tokens: [Int32]
        /// Whether the output grammar made it (``ActiveGeneration/grammarDraft(maximum:)``), not the speculator.
        var fromGrammar = false
    }

    /// A draft decoded in this step for one sequence: its tokens follow the pending token at `batchIndex`.
    struct Speculated {
        var draft: Draft
        var batchIndex: Int
    }


    /// A prompt-lookup draft that was checked only in part, or not at all: its tokens would
    /// have been at positions `start`, `start + 1`, …, and the step checked the first `checked`.
    /// What follows the checked part is compared with the tokens generated later, so that the
    /// planner learns how far drafts run right beyond what it checks, instead of guessing.
    struct ShadowDraft {
        var start: Int
        var tokens: [Int32]
        var checked: Int
    }

    /// Drafts for the generating sequences `indices`, within the batch's room (each sequence's
    /// pending token first) and each request's token and context limits, for the requests whose
    /// options speculate (``CompletionOptions/speculates``); a greedy request that generates alone
    /// within ``exactVerificationRows``. A request with an output grammar drafts what the grammar
    /// allows next, where it knows that; the others draft with the speculator. A sequence without
    /// a draft this step is absent. A failing draft model costs only this step's drafts.
    ///
    /// With a ``DraftPlanner``, a draft model or MTP drafts only the tokens the plan checks;
    /// prompt lookup drafts all it can, the plan checks part of it, and a draft it does not
    /// check whole is kept as a ``ShadowDraft`` (one per sequence at a time).
    func draft(for indices: [Int]) -> [Int: Draft] {
        var room = context.batchSize - indices.count
        var result = grammarDrafts(for: indices, room: &room)
        guard let speculator else { return result }
        observeShadowDrafts(of: indices, in: &shadowDrafts, planner: &draftPlanner)
        var requests: [Speculator.Request] = []
        for index in indices {
            guard room > 0, result[Int(slots[index].id)] == nil, let generation = slots[index].generation,
                  let token = generation.pendingToken, generation.request.plan.options.speculates else { continue }
            // A greedy request generating alone draws exactly what plain decoding would: its draft
            // stays within the rows a batch computes as one token alone does.
            let exact = indices.count == 1 && generation.isGreedy ? (exactVerificationRows ?? Int.max) - 1 : Int.max
            let maximum = min(speculator.maximumDraft, room, generation.remainingTokens - 1, exact)
            guard maximum > 0 else { continue }
            requests.append(.init(sequence: slots[index].id, history: slots[index].tokens, lastToken: token, maximum: maximum))
            room -= maximum
        }
        if let draftPlanner, !speculator.draftsCheaply {
            let lengths = draftPlanner.lengths(for: requests.map { (Int($0.sequence), $0.maximum) }, rows: indices.count)
            for (offset, length) in lengths.enumerated() { requests[offset].maximum = length }
            requests.removeAll { $0.maximum == 0 }
        }
        let start = ContinuousClock.now
        guard var drafts = try? speculator.drafts(for: requests) else { return result }
        if !speculator.draftsCheaply {
            // A draft context that had to catch up on more than the last step's tokens (a new
            // prompt, or steps that did not draft) took longer than drafting does step by step.
            if speculator.caughtUpTokens <= requests.count {
                draftPlanner?.recordDrafting(tokens: requests.map(\.maximum).max() ?? 0, seconds: (.now - start).seconds)
            }
        } else if let draftPlanner {
            let lengths = draftPlanner.lengths(for: zip(requests, drafts).map { (Int($0.sequence), $1.count) },
                                               rows: indices.count)
            for (offset, length) in lengths.enumerated() where length < drafts[offset].count {
                let sequence = requests[offset].sequence
                if shadowDrafts[sequence] == nil {
                    shadowDrafts[sequence] = ShadowDraft(start: requests[offset].history.count + 1, tokens: drafts[offset],
                                                         checked: length)
                }
                drafts[offset].removeSubrange(length...)
            }
        }
        for (request, draft) in zip(requests, drafts) where !draft.isEmpty {
            result[Int(request.sequence)] = Draft(tokens: draft)
        }
        return result
    }

    /// Compares the shadow drafts of the sequences `indices` with the tokens they have
    /// generated since (the pending token included); a draft is counted once it is decided:
    /// a token differs, or every token agrees. The planner counts it whole, checked part
    /// included (``verify(_:of:decoded:)`` leaves that part to this).
    func observeShadowDrafts(of indices: [Int], in shadowDrafts: inout [Int32: ShadowDraft], planner draftPlanner: inout DraftPlanner?) {
        guard !shadowDrafts.isEmpty else { return }
        for index in indices {
            let sequence = slots[index].id
            guard let shadow = shadowDrafts[sequence], let pending = slots[index].generation?.pendingToken else { continue }
            let tokens = slots[index].tokens
            var agreeing = 0
            var decided = false
            for (offset, drafted) in shadow.tokens.enumerated() {
                let position = shadow.start + offset
                guard position <= tokens.count else { break }
                if (position < tokens.count ? tokens[position] : pending) != drafted {
                    decided = true
                    break
                }
                agreeing += 1
            }
            guard decided || agreeing == shadow.tokens.count else { continue }
            draftPlanner?.recordDraft(drafted: shadow.tokens.count, accepted: agreeing, of: Int(sequence))
            shadowDrafts[sequence] = nil
        }
    }

    /// Draws along `speculation`'s positions for slot `index` after the step decoded `entries`,
    /// keeps the agreeing part of the draft in the cache and drops the rest.
    func verify(_ speculation: Speculated, of index: Int, decoded entries: [InferenceContext.Entry]) {
        guard let generation = slots[index].generation else { return }
        let draft = speculation.draft
        slots[index].tokens.append(entries[speculation.batchIndex].token)
        // A draft checked in part: its shadow tells the planner about it once decided.
        let shadowed = (draft.fromGrammar ? grammarShadows : shadowDrafts)[slots[index].id].map {
            $0.start == slots[index].tokens.count && $0.checked == draft.tokens.count
        } ?? false
        var accepted = 0
        defer {
            context.removePositions(of: slots[index].id, from: slots[index].tokens.count)
            if draft.fromGrammar {
                generation.recordGrammarDraft(drafted: draft.tokens.count, accepted: accepted)
                if !shadowed {
                    grammarPlanner?.recordDraft(drafted: draft.tokens.count, accepted: accepted, of: Int(slots[index].id))
                }
            } else {
                generation.recordDraft(drafted: draft.tokens.count, accepted: accepted)
                if !shadowed {
                    draftPlanner?.recordDraft(drafted: draft.tokens.count, accepted: accepted, of: Int(slots[index].id))
                }
                speculator?.accept(accepted, for: slots[index].id)
            }
            if generation.outcome != nil { release(index) }
        }
        guard generation.outcome == nil else { return }     // its text ended it: a stop sequence, or balanced JSON
        for row in 0...draft.tokens.count {
            if row > 0 {
                // Deferred text (see ``ActiveGeneration/handleDeferredText()``) is handled before the
                // next draw: the token just accepted may end the request.
                do { try generation.handleDeferredText() } catch { return fail(index, error) }
                guard generation.outcome == nil else { return }
            }
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
            guard generation.outcome == nil, row < draft.tokens.count, generation.pendingToken == draft.tokens[row] else { return }
            accepted += 1
            slots[index].tokens.append(draft.tokens[row])
        }
    }
}
