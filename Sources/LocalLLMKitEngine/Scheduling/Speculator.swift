import CLlama
import CLlamaEngineBridge

/// Drafts tokens for the ``BatchScheduler``'s generating sequences through llama.cpp's
/// `common_speculative`: from n-grams of each sequence's own tokens, from a draft model's
/// context with as many sequences as the target's, or from the model's own
/// next-token-prediction layers in a multi-token-prediction (MTP) context.
///
/// A draft model's context follows the target's cache lazily: before each draft, every sequence
/// drafted for is brought to the tokens the target holds (the common prefix kept, the rest
/// decoded), so that what the scheduler does to the target's cache (prefix sharing, restored
/// states, rejected drafts) never needs mirroring.
///
/// An MTP context cannot catch up later: its cells pair each token with the target's hidden
/// state of the token before, which the target keeps only until its next decode. So it sees
/// every batch right after the target decoded it (``didDecode(_:)``), and it is the target's
/// ``InferenceContext/mirror``: whatever the scheduler removes from or copies within the target's
/// cache, it removes or copies there too. A restored sequence has no such cells; its drafts
/// then see less context until it has generated, which costs acceptance, never tokens.
///
/// Not thread-safe: it lives in the scheduler, on the model's ``EngineExecutor``.
package final class Speculator {
    /// One sequence to draft for.
    package struct Request {
        package var sequence: Int32
        /// The tokens in the target's cache for the sequence, from position 0 on.
        package var history: [Int32]
        /// The token sampled last, which the step decodes at position `history.count`.
        package var lastToken: Int32
        /// The most tokens to draft.
        package var maximum: Int
    }

    private let pointer: OpaquePointer
    /// The most tokens drafted for one step.
    package let maximumDraft: Int
    /// Whether a ``DraftPlanner`` chooses how much of each draft a step checks
    /// (``LocalModel/Configuration/Speculation/adaptsDraftLength``).
    package let adaptsDraftLength: Bool
    /// Whether drafting costs next to nothing (prompt lookup searches the tokens), so that a
    /// step can draft the most and check only part: a draft model or MTP decodes to draft.
    package let draftsCheaply: Bool
    private let draft: InferenceContext?
    /// Whether the draft context is an MTP context of the target's own model.
    private let predictsWithModelLayers: Bool
    /// What a draft model's context holds for each sequence, from position 0 on.
    private var drafted: [[Int32]]
    /// How many tokens the last ``drafts(for:)`` decoded in the draft model's context to bring
    /// it up to the target's tokens before drafting (the whole prompt, the first time).
    package private(set) var caughtUpTokens = 0

    /// A speculator over `target`'s sequences.
    /// - Parameter draft: the draft model's context, for a draft model.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` or, when llama.cpp refuses the
    ///   pair, ``LocalModel/Error/incompatibleDraftModel(path:reason:)``.
    package init(_ speculation: LocalModel.Configuration.Speculation, target: InferenceContext,
                 draft: InferenceContext?, draftPath: String?) throws {
        let kind: Int32
        var ngram: Int32 = 0
        switch speculation.source {
        case .promptLookup(let length):
            kind = Int32(LLMKIT_SPECULATOR_PROMPT_LOOKUP)
            ngram = Int32(length)
        case .draftModel:
            kind = Int32(LLMKIT_SPECULATOR_DRAFT_MODEL)
        case .multiTokenPrediction:
            kind = Int32(LLMKIT_SPECULATOR_MTP)
        case .none, .automatic:
            throw LocalModel.Error.invalidOption(name: "speculation", reason: "\(speculation) drafts nothing")
        }
        var error: llmkit_error?
        let made = llmkit_speculator_create(kind, target.pointer, draft?.pointer, Int32(target.sequenceCount),
                                            Int32(speculation.maximumDraft), ngram, &error)
        guard let made else {
            let reason = Bridge.take(error) ?? "llama.cpp refused it"
            if let draftPath { throw LocalModel.Error.incompatibleDraftModel(path: draftPath, reason: reason) }
            throw LocalModel.Error.invalidOption(name: "speculation", reason: reason)
        }
        self.pointer = made
        self.maximumDraft = speculation.maximumDraft
        self.adaptsDraftLength = speculation.adaptsDraftLength
        self.draftsCheaply = kind == Int32(LLMKIT_SPECULATOR_PROMPT_LOOKUP)
        self.draft = draft
        self.predictsWithModelLayers = speculation.source == .multiTokenPrediction
        self.drafted = Array(repeating: [], count: target.sequenceCount)
        if predictsWithModelLayers { target.mirror = draft }
    }

    deinit {
        llmkit_speculator_free(pointer)
    }

    /// Tells the speculator that `sequence` starts generating after `prompt`.
    package func begin(_ sequence: Int32, prompt: [Int32]) {
        guard !predictsWithModelLayers else { return }    // MTP only checks that the prompt was seen: it is not yet
        var error: llmkit_error?
        if !llmkit_speculator_begin(pointer, sequence, prompt, Int32(prompt.count), &error) {
            _ = Bridge.take(error)         // only n-gram maps keep state here, and none is used
        }
    }

    /// A draft for each request (empty where nothing matched), made in the same batches.
    /// - Throws: ``LocalModel/Error/decodeFailed(code:reason:)`` when the draft model cannot
    ///   decode; the scheduler then steps without drafts.
    package func drafts(for requests: [Request]) throws -> [[Int32]] {
        guard !requests.isEmpty else { return [] }
        if draft != nil, !predictsWithModelLayers { try catchUp(requests) }
        let stride = maximumDraft
        var output = [Int32](repeating: 0, count: requests.count * stride)
        var counts = [Int32](repeating: 0, count: requests.count)
        var error: llmkit_error?
        let succeeded = withBridgeRequests(requests) { bridged in
            llmkit_speculator_draft(pointer, bridged, Int32(bridged.count), &output, Int32(stride), &counts, &error)
        }
        if predictsWithModelLayers, let draft {
            // Drafting left the draft's cells in the MTP context, from the last token's position
            // on; the step decodes those positions, and ``didDecode(_:)`` adds what it decoded.
            for request in requests { draft.removePositions(of: request.sequence, from: request.history.count) }
        }
        guard succeeded else {
            throw LocalModel.Error.decodeFailed(code: -1, reason: "drafting failed: \(Bridge.take(error) ?? "unknown")")
        }
        if let draft, !predictsWithModelLayers {
            // The draft context now holds the last token and the draft up to what it decoded.
            for (offset, request) in requests.enumerated() {
                let tokens = request.history + [request.lastToken] + output[(offset * stride)..<(offset * stride + Int(counts[offset]))]
                drafted[Int(request.sequence)] = Array(tokens.prefix(draft.lastPosition(of: request.sequence) + 1))
            }
        }
        return requests.indices.map { Array(output[($0 * stride)..<($0 * stride + Int(counts[$0]))]) }
    }

    /// Shows an MTP context the batch the target has just decoded (nothing for other kinds).
    /// When it cannot follow, the sequences of that batch lose their MTP cells, and their drafts
    /// see less context from then on.
    package func didDecode(_ entries: [InferenceContext.Entry]) {
        guard predictsWithModelLayers, let draft, !entries.isEmpty else { return }
        var error: llmkit_error?
        let ok = llmkit_speculator_process(pointer, entries.map(\.token), entries.map { Int32($0.position) },
                                           entries.map(\.sequence), Int32(entries.count), &error)
        if !ok {
            _ = Bridge.take(error)
            for sequence in Set(entries.map(\.sequence)) { draft.removePositions(of: sequence, from: 0) }
        }
    }

    /// Tells the speculator that the target accepted `count` tokens of the last draft for `sequence`.
    package func accept(_ count: Int, for sequence: Int32) {
        llmkit_speculator_accept(pointer, sequence, Int32(clamping: count))
    }

    /// Brings the draft context's sequences to the target's tokens before drafting.
    private func catchUp(_ requests: [Request]) throws {
        guard let draft else { return }
        var pending: [(token: Int32, position: Int32, sequence: Int32)] = []
        defer { caughtUpTokens = pending.count }
        for request in requests {
            let index = Int(request.sequence)
            var kept = zip(drafted[index], request.history).prefix { $0 == $1 }.count
            if !draft.removePositions(of: request.sequence, from: kept) {
                draft.removePositions(of: request.sequence, from: 0)
                kept = 0
            }
            drafted[index] = Array(request.history.prefix(kept))
            for position in kept..<request.history.count {
                pending.append((request.history[position], Int32(position), request.sequence))
            }
        }
        var start = 0
        while start < pending.count {
            let chunk = pending[start..<min(start + draft.batchSize, pending.count)]
            var error: llmkit_error?
            let ok = llmkit_speculator_process(pointer, chunk.map(\.token), chunk.map(\.position), chunk.map(\.sequence),
                                               Int32(chunk.count), &error)
            guard ok else {
                for request in requests {
                    draft.removePositions(of: request.sequence, from: 0)
                    drafted[Int(request.sequence)] = []
                }
                throw LocalModel.Error.decodeFailed(code: -1, reason: Bridge.take(error) ?? "the draft model failed")
            }
            for entry in chunk { drafted[Int(entry.sequence)].append(entry.token) }
            start += chunk.count
        }
    }

    private func withBridgeRequests<Result>(_ requests: [Request],
                                            _ body: ([llmkit_draft_request]) -> Result) -> Result {
        // Every history in one buffer, which stays valid while the bridge reads it.
        let joined = requests.flatMap(\.history)
        return joined.withUnsafeBufferPointer { buffer in
            var offset = 0
            let bridged = requests.map { request in
                defer { offset += request.history.count }
                return llmkit_draft_request(sequence: request.sequence, history: buffer.baseAddress.map { $0 + offset },
                                            history_count: Int32(request.history.count),
                                            last_token: request.lastToken, maximum: Int32(request.maximum))
            }
            return body(bridged)
        }
    }
}
