/// One ``LocalModel/embeddings(for:options:)`` call's progress through its texts, decoded in
/// units of bounded size (``EmbeddingContext/decodeUnit(of:tokens:cancellation:)``), so that
/// a model that also generates can run its generation steps between them.
///
/// A decoder (causal attention) may split a long text over several units: the text keeps its
/// sequence and its cache between them, and its vector is pooled here from the token vectors
/// of every unit. An encoder (BERT) sees each text whole, in one unit.
package struct EmbeddingJob {
    /// The texts' tokens, in order.
    package let inputs: [[Int32]]
    /// Vectors of the texts finished so far, in order, not normalised.
    package private(set) var vectors: [[Float]] = []
    /// Units decoded so far.
    package private(set) var unitCount = 0
    /// Tokens decoded so far.
    package private(set) var decodedTokens = 0

    /// The first text not finished yet.
    private(set) var next = 0
    /// Tokens of `inputs[next]` decoded in earlier units.
    private(set) var offset = 0
    /// The sequence that holds `inputs[next]` while it is split over units.
    private(set) var carriedSequence: Int32?
    /// The sum of `inputs[next]`'s token vectors so far (mean pooling), or the vector found (first token).
    private var partial: [Double] = []

    package init(inputs: [[Int32]]) {
        self.inputs = inputs
    }

    /// Whether every text has its vector.
    package var isFinished: Bool { next == inputs.count }

    /// One span of a unit: `count` tokens of text `text`, from `start`, in sequence `sequence`.
    struct Span {
        let text: Int
        let sequence: Int32
        let start: Int
        let count: Int
        /// Whether the span ends its text.
        let finishes: Bool
    }

    /// The next unit: at most `tokens` tokens and `sequences` texts, in order. `splits` allows
    /// a text to be cut at the unit's end (a causal model); otherwise a unit holds whole texts,
    /// at least one.
    func nextUnit(tokens: Int, sequences: Int, splits: Bool) -> [Span] {
        var spans: [Span] = []
        var room = tokens
        var text = next
        var start = offset
        var sequence: Int32 = 0
        func freshSequence() -> Int32 {
            while sequence == carriedSequence { sequence += 1 }
            defer { sequence += 1 }
            return sequence
        }
        while text < inputs.count, spans.count < sequences, room > 0 {
            let left = inputs[text].count - start
            guard left <= room || splits || spans.isEmpty else { break }
            let count = splits ? min(left, room) : left
            let id = text == next && carriedSequence != nil ? carriedSequence! : freshSequence()
            spans.append(Span(text: text, sequence: id, start: start, count: count, finishes: count == left))
            room -= count
            guard count == left else { break }
            text += 1
            start = 0
        }
        return spans
    }

    /// Records what a decoded unit gave: for each span, the vectors of the tokens it asked for
    /// (every token for mean pooling, the first for CLS, the last for last-token pooling), or
    /// with `pooledByModel`, for each span that ends its text, the text's vector as llama.cpp
    /// pooled it.
    mutating func record(_ spans: [Span], vectors rowVectors: [[Float]], pooling: EmbeddingContext.Pooling,
                         pooledByModel: Bool) {
        var row = 0
        for span in spans {
            let wanted = pooledByModel ? (span.finishes ? 0..<1 : 0..<0) : Self.outputRows(of: span, pooling: pooling)
            for _ in wanted {
                let vector = rowVectors[row]
                row += 1
                switch pooledByModel ? .last : pooling {
                case .mean:
                    if partial.isEmpty { partial = [Double](repeating: 0, count: vector.count) }
                    for index in vector.indices { partial[index] += Double(vector[index]) }
                case .cls, .last, .rank:
                    partial = vector.map(Double.init)
                }
            }
            decodedTokens += span.count
            if span.finishes {
                let count = Double(inputs[span.text].count)
                vectors.append(partial.map { Float(pooling == .mean && !pooledByModel ? $0 / count : $0) })
                partial = []
                next = span.text + 1
                offset = 0
                carriedSequence = nil
            } else {
                offset = span.start + span.count
                carriedSequence = span.sequence
            }
        }
        unitCount += 1
    }

    /// Which tokens of a span (by index within the span) a pooling needs the vector of.
    static func outputRows(of span: Span, pooling: EmbeddingContext.Pooling) -> Range<Int> {
        switch pooling {
        case .mean: return 0..<span.count
        case .cls: return span.start == 0 ? 0..<1 : 0..<0
        case .last, .rank: return span.finishes ? (span.count - 1)..<span.count : 0..<0
        }
    }
}
