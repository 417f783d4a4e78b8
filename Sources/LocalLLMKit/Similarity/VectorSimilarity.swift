#if canImport(Accelerate)
import Accelerate
#endif

/// Similarity of embedding vectors: cosine, dot product, and a search for the closest.
///
/// ```swift
/// let documents = ["How to reset a password", "Opening hours of the shop"]
/// let vectors = try await model.embeddings(for: documents).vectors
/// let query = try await model.embedding(for: "How do I reset my password?")
/// for match in try VectorSimilarity.mostSimilar(to: query, in: vectors, count: 3) {
///     print(documents[match.offset], match.score)
/// }
/// ```
///
/// Uses vDSP on Apple platforms and a SIMD loop elsewhere.
public enum VectorSimilarity {
    /// How two vectors are compared.
    public enum Metric: String, Sendable, CaseIterable, Codable {
        /// The cosine of the angle between them, from -1 to 1 (length does not matter).
        case cosine
        /// Their dot product: the cosine for normalised vectors, and quicker.
        case dot
    }

    /// One result of ``mostSimilar(to:in:count:metric:)``.
    public struct Match: Sendable, Equatable {
        /// The candidate's position in the collection searched (0 for its first element).
        public var offset: Int
        /// Its similarity to the query.
        public var score: Float
    }

    /// The dot product of `a` and `b`.
    /// - Throws: ``Error/dimensionMismatch(expected:actual:)`` when their lengths differ.
    public static func dot(_ a: [Float], _ b: [Float]) throws -> Float {
        guard a.count == b.count else { throw Error.dimensionMismatch(expected: a.count, actual: b.count) }
        return dotProduct(a, b)
    }

    /// The cosine similarity of `a` and `b`; 0 when either is all zeros.
    /// - Throws: ``Error/dimensionMismatch(expected:actual:)`` when their lengths differ.
    public static func cosine(_ a: [Float], _ b: [Float]) throws -> Float {
        guard a.count == b.count else { throw Error.dimensionMismatch(expected: a.count, actual: b.count) }
        let norms = (dotProduct(a, a) * dotProduct(b, b)).squareRoot()
        return norms > 0 ? dotProduct(a, b) / norms : 0
    }

    /// The `count` candidates most similar to `query`, best first (ties keep the collection's order).
    /// - Parameters:
    ///   - query: the vector to compare with.
    ///   - candidates: the vectors to search, each as long as `query`.
    ///   - count: how many to return at most; 0 returns none.
    ///   - metric: cosine (the default) or dot.
    /// - Throws: ``Error/dimensionMismatch(expected:actual:)`` naming a candidate of another
    ///   length, or ``Error/negativeCount(_:)``.
    public static func mostSimilar<Candidates: Collection<[Float]>>(
        to query: [Float], in candidates: Candidates, count: Int, metric: Metric = .cosine
    ) throws -> [Match] {
        guard count >= 0 else { throw Error.negativeCount(count) }
        let queryNorm = dotProduct(query, query).squareRoot()
        var matches: [Match] = []
        matches.reserveCapacity(candidates.count)
        for (offset, candidate) in candidates.enumerated() {
            guard candidate.count == query.count else {
                throw Error.dimensionMismatch(expected: query.count, actual: candidate.count)
            }
            var score = dotProduct(query, candidate)
            if metric == .cosine {
                let norms = queryNorm * dotProduct(candidate, candidate).squareRoot()
                score = norms > 0 ? score / norms : 0
            }
            matches.append(Match(offset: offset, score: score))
        }
        // Stable: sort by score, then by position.
        matches.sort { $0.score != $1.score ? $0.score > $1.score : $0.offset < $1.offset }
        return Array(matches.prefix(count))
    }

    /// The dot product of two vectors of the same length.
    static func dotProduct(_ a: [Float], _ b: [Float]) -> Float {
        #if canImport(Accelerate)
        var result: Float = 0
        vDSP_dotpr(a, 1, b, 1, &result, vDSP_Length(a.count))
        return result
        #else
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                let count = x.count
                var sums = SIMD8<Float>()
                var index = 0
                while index + 8 <= count {
                    let left = SIMD8<Float>(x[index..<index + 8])
                    let right = SIMD8<Float>(y[index..<index + 8])
                    sums += left * right
                    index += 8
                }
                var result = sums.sum()
                while index < count {
                    result += x[index] * y[index]
                    index += 1
                }
                return result
            }
        }
        #endif
    }
}
