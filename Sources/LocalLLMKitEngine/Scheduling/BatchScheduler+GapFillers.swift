import CLlama

/// Rows that keep a generation step in one micro-batch where idle sequences sit between
/// generating ones.
///
/// With a KV stream per sequence, llama.cpp cuts a batch into micro-batches that each take the
/// same number of rows from a run of sequences whose ids follow one another
/// (`split_equal`, sequential): generating sequences 0–2 and 4–7 with sequence 3 idle make two
/// micro-batches, two passes over the weights where one would do. On a GPU it costs more: the
/// two graphs differ in shape, and ggml's CUDA backend replays a captured graph only after two
/// calls of the same shape in a row, so such steps launch every kernel from the host. A filler
/// row, one token of the idle sequence at its next position without logits, closes the gap;
/// the scheduler removes that position again right after the decode, so the sequence holds
/// what it held before (the cell llama.cpp wrote stays free).
struct GapFillerRule {
    /// One idle sequence between generating ones: what decides whether it can take a filler row.
    struct Gap: Equatable {
        /// Its id.
        var sequence: Int32
        /// Whether no request holds it.
        var isIdle: Bool
        /// The positions it holds (its next position is this).
        var held: Int
    }

    /// The cells of one sequence's stream.
    var cellsPerSequence: Int
    /// The positions a sliding-window cache keeps (0: every position).
    var keptWindow: Int
    /// llama.cpp rounds the cells a micro-batch's attention reads up to a multiple of this (at
    /// least), the same for every stream of it (`llama_kv_cache::get_n_kv`).
    static let cellPadding = 256

    /// The sequences that take a filler row in a step whose rows are `sequences` (one row each,
    /// in id order), where `gaps` are the sequences missing between the first and the last of
    /// them and `longest` the most positions a generating one holds before the step; empty when
    /// the step keeps its micro-batches.
    ///
    /// All gaps are filled or none: a partly filled run still splits. Only idle sequences take
    /// a row. Not where a sequence's stream is full, nor where its next position could push
    /// older positions out of a sliding window (the cell written would be one of theirs), nor
    /// where one's cells reach past the generating ones' rounded up to ``cellPadding`` (attention
    /// would then read more cells for every row: on a GPU with long contexts, more bytes than
    /// the weights), nor where more fillers than rows are needed (on a CPU a row
    /// costs its share of the compute).
    func fillers(sequences: [Int32], gaps: [Gap], longest: Int) -> [InferenceContext.Entry] {
        guard !gaps.isEmpty, gaps.count <= sequences.count else { return [] }
        var rows: [InferenceContext.Entry] = []
        for gap in gaps {
            guard gap.isIdle, Self.padded(gap.held + 1) <= Self.padded(longest + 1), gap.held + 1 < cellsPerSequence,
                  keptWindow == 0 || gap.held + 1 < keptWindow else { return [] }
            rows.append(.init(token: 0, position: gap.held, sequence: gap.sequence, wantsLogits: false))
        }
        return rows
    }

    /// `cells` rounded up to a multiple of ``cellPadding``.
    static func padded(_ cells: Int) -> Int {
        (cells + cellPadding - 1) / cellPadding * cellPadding
    }

    /// The sequences missing between the first and the last of `sequences` (ascending ids);
    /// nil when `sequences` are not strictly ascending (a sequence with several rows, as with
    /// a draft: then rows differ per sequence and llama.cpp splits the step anyway).
    static func missing(between sequences: [Int32]) -> [Int32]? {
        guard let first = sequences.first, let last = sequences.last else { return [] }
        var missing: [Int32] = []
        var next = first
        for sequence in sequences {
            guard sequence >= next else { return nil }
            missing += next..<sequence
            next = sequence + 1
        }
        assert(next == last + 1)
        return missing
    }

    /// `rows` and `fillers` together, in the order of their sequences' ids (both are in that order).
    static func merging(_ fillers: [InferenceContext.Entry], into rows: [InferenceContext.Entry]) -> [InferenceContext.Entry] {
        var merged: [InferenceContext.Entry] = []
        merged.reserveCapacity(rows.count + fillers.count)
        var next = fillers.startIndex
        for row in rows {
            while next < fillers.endIndex, fillers[next].sequence < row.sequence {
                merged.append(fillers[next])
                next += 1
            }
            merged.append(row)
        }
        merged += fillers[next...]
        return merged
    }
}

extension BatchScheduler {
    /// A gap step's shape and whether it was filled, for ``GapFillerChoice/record(shape:filled:seconds:)``.
    typealias GapStep = (shape: Int, filled: Bool)

    /// The filler rows a generation step whose rows are `entries` decodes, and, where it has gaps
    /// that could be filled, its shape and whether they are (see ``GapFillerChoice``).
    func chooseGapFillers(for entries: [InferenceContext.Entry]) -> (fillers: [InferenceContext.Entry], step: GapStep?) {
        let fillers = gapFillers(for: entries)
        guard !fillers.isEmpty else { return ([], nil) }
        var hasher = Hasher()
        for entry in entries { hasher.combine(entry.sequence) }
        for filler in fillers { hasher.combine(-1 - filler.sequence) }
        let filled = gapChoice.fills()
        return (filled ? fillers : [], (hasher.finalize(), filled))
    }

    /// The filler rows of a generation step whose rows are `entries` (see ``GapFillerRule``):
    /// only where each sequence has a KV stream of its own, and not with speculation or a
    /// multi-token-prediction context (their caches follow this one's rows), nor for a model
    /// with recurrent layers (their state cannot drop the filler's token again).
    func gapFillers(for entries: [InferenceContext.Entry]) -> [InferenceContext.Entry] {
        // Most steps (every sequence generating, one row each) have no gap: they leave here,
        // before anything is allocated or asked of llama.cpp.
        guard let first = entries.first?.sequence, let last = entries.last?.sequence, Int(last - first) + 1 != entries.count,
              gapChoice.mode != .never, context.streamCount > 1, speculator == nil, context.mirror == nil,
              !llama_model_is_recurrent(context.model.pointer), !llama_model_is_hybrid(context.model.pointer),
              let missing = GapFillerRule.missing(between: entries.map(\.sequence)), !missing.isEmpty else { return [] }
        let longest = entries.map { slots[Int($0.sequence)].tokens.count }.max() ?? 0
        let gaps = missing.map { sequence in
            let slot = slots[Int(sequence)]
            return GapFillerRule.Gap(sequence: sequence, isIdle: slot.isIdle, held: context.lastPosition(of: sequence) + 1)
        }
        let rule = GapFillerRule(cellsPerSequence: context.cellsPerSequence, keptWindow: context.keptWindow)
        return rule.fillers(sequences: entries.map(\.sequence), gaps: gaps, longest: longest)
    }
}
