/// Whether generation steps fill their gaps (see ``GapFillerRule``), decided by measuring both
/// ways on the device that runs them.
///
/// A filler row saves passes over the weights and costs its share of a pass's compute. On a GPU,
/// and on a CPU for a model whose pass is dominated by reading weights (a large output matrix),
/// filling is several times faster; for a very small model on a CPU, whose rows cost more than
/// reading its weights, one pass with an extra row can be slower than two without it. So the
/// scheduler measures: two consecutive gap steps of the same shape (the same sequences generating,
/// the same gaps), one filled and one not, give the ratio of their times, kept as a moving
/// average. Until the first pair, steps alternate; after it, they follow the average, taking the
/// other way now and then to keep it current, rarely when it is clear.
struct GapFillerChoice {
    /// How gap steps are decided: by measuring, or always one way (for benchmarks and tests).
    enum Mode: Equatable {
        case measured
        case always
        case never
    }

    var mode = Mode.measured
    /// Unfilled time ÷ filled time over pairs of like steps; nil before the first pair.
    private(set) var ratio: Double?
    /// The last gap step: its shape, whether it was filled, and how long it took.
    private var last: (shape: Int, filled: Bool, seconds: Double)?
    /// Gap steps since the last one that went the other way.
    private var sinceProbe = 0

    /// The weight of a new pair in ``ratio``.
    static let pairWeight = 0.3
    /// Gap steps between probes of the other way while the ratio is near 1.
    static let closeProbeInterval = 32
    /// Gap steps between probes while the ratio is far from 1 (below 2/3 or above 3/2): a probe
    /// of the slow way costs most then.
    static let clearProbeInterval = 512

    /// Whether the next gap step is filled.
    mutating func fills() -> Bool {
        switch mode {
        case .always: return true
        case .never: return false
        case .measured: break
        }
        guard let ratio else { return !(last?.filled ?? false) }
        let preferred = ratio > 1
        let interval = ratio > 1.5 || ratio < 1 / 1.5 ? Self.clearProbeInterval : Self.closeProbeInterval
        sinceProbe += 1
        guard sinceProbe >= interval else { return preferred }
        sinceProbe = 0
        return !preferred
    }

    /// Records a gap step of `shape` (a hash of its sequences and gaps) that took `seconds`.
    /// Steps of a fixed mode are not remembered: a pair is of two steps that were chosen here.
    mutating func record(shape: Int, filled: Bool, seconds: Double) {
        guard mode == .measured else { return }
        defer { last = (shape, filled, seconds) }
        guard seconds > 0, let last, last.shape == shape, last.filled != filled, last.seconds > 0 else { return }
        let pair = filled ? last.seconds / seconds : seconds / last.seconds
        ratio = ratio.map { $0 + Self.pairWeight * (pair - $0) } ?? pair
    }
}
