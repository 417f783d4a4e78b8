import Foundation

/// A generated token with its log-probability, and the likeliest tokens at its place
/// (``CompletionOptions/logProbabilityAlternatives``): from the softmax of the model's logits,
/// before any sampling setting (temperature, top-k…), as llama-server reports them.
public struct TokenLogProbability: Sendable, Equatable {
    /// One token and its log-probability.
    public struct Candidate: Sendable, Equatable {
        /// The token id.
        public var token: LocalModel.Token
        /// The token's bytes (special tokens as their text); a piece of a multi-byte character
        /// is not valid UTF-8 on its own.
        public var bytes: [UInt8]
        /// The natural logarithm of its probability (≤ 0).
        public var logProbability: Double

        /// The bytes as text, invalid sequences replaced (U+FFFD).
        public var text: String { String(decoding: bytes, as: UTF8.self) }

        /// A candidate.
        public init(token: LocalModel.Token, bytes: [UInt8], logProbability: Double) {
            self.token = token
            self.bytes = bytes
            self.logProbability = logProbability
        }
    }

    /// The token that was generated.
    public var chosen: Candidate
    /// The likeliest tokens at its place, most likely first (the chosen one among them when it
    /// was likely enough).
    public var alternatives: [Candidate]

    /// A token's log-probability and its alternatives.
    public init(chosen: Candidate, alternatives: [Candidate]) {
        self.chosen = chosen
        self.alternatives = alternatives
    }

    /// Computes `token`'s entry from one step's `logits` over the vocabulary, as llama-server
    /// does, so that the numbers agree with its own: the `alternatives` highest logits (ties to
    /// the lower id), and the softmax in single precision, summed over the alternatives first,
    /// then over the rest of the vocabulary in order. (A sum of a whole vocabulary in single
    /// precision is off in its fourth decimal; llama-server's numbers carry that, and so do these.)
    package static func measure(token: LocalModel.Token, logits: UnsafePointer<Float>, vocabularySize: Int, alternatives: Int,
                                piece: (LocalModel.Token) throws -> [UInt8]) rethrows -> TokenLogProbability {
        let scores = UnsafeBufferPointer(start: logits, count: vocabularySize)
        // The top `alternatives` in one pass: a small sorted list (at most 20 entries).
        var top: [(score: Float, id: Int32)] = []
        if alternatives > 0 {
            for (index, score) in scores.enumerated() where top.count < alternatives || score > top[top.count - 1].score {
                let entry = (score: score, id: Int32(index))
                let place = top.firstIndex { $0.score < score } ?? top.count
                top.insert(entry, at: place)
                if top.count > alternatives { top.removeLast() }
            }
        }
        var maximum = top.first?.score ?? -Float.infinity
        if top.isEmpty { for score in scores where score > maximum { maximum = score } }
        var sum: Float = 0
        for entry in top { sum += expf(entry.score - maximum) }
        let isTop = Set(top.map(\.id))
        for (index, score) in scores.enumerated() where !isTop.contains(Int32(index)) { sum += expf(score - maximum) }
        func candidate(_ id: LocalModel.Token) throws -> Candidate {
            let probability = expf(scores[Int(id)] - maximum) / sum
            return Candidate(token: id, bytes: try piece(id), logProbability: Double(logf(probability)))
        }
        return TokenLogProbability(chosen: try candidate(token), alternatives: try top.map { try candidate($0.id) })
    }
}
