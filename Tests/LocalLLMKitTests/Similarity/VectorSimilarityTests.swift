import Foundation
import Testing
@testable import LocalLLMKit

/// The similarity functions against a plain Double loop (model-free).
@Suite("Vector similarity")
struct VectorSimilarityTests {
    static func reference(_ a: [Float], _ b: [Float]) -> Double {
        zip(a, b).reduce(0) { $0 + Double($1.0) * Double($1.1) }
    }

    static func vector(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float(sin(Double($0 * 7 + seed)) * 0.5) }
    }

    @Test("dot and cosine equal a Double loop, for lengths around the SIMD width", arguments: [1, 7, 8, 9, 13, 384])
    func matchesReference(count: Int) throws {
        let a = Self.vector(count, seed: 1), b = Self.vector(count, seed: 5)
        let dot = Self.reference(a, b)
        #expect(abs(Double(try VectorSimilarity.dot(a, b)) - dot) < 1e-4)
        let cosine = dot / (Self.reference(a, a).squareRoot() * Self.reference(b, b).squareRoot())
        #expect(abs(Double(try VectorSimilarity.cosine(a, b)) - cosine) < 1e-5)
        #expect(abs(try VectorSimilarity.cosine(a, a) - 1) < 1e-5)
    }

    @Test("A zero vector has cosine 0, not NaN")
    func zeroVector() throws {
        #expect(try VectorSimilarity.cosine([0, 0, 0], [1, 2, 3]) == 0)
    }

    @Test("mostSimilar ranks best first, keeps the collection's order on ties, and honours count")
    func ranking() throws {
        let candidates: [[Float]] = [[0, 1], [1, 0], [0.6, 0.8], [1, 0], [-1, 0]]
        let matches = try VectorSimilarity.mostSimilar(to: [1, 0], in: candidates, count: 3)
        #expect(matches.map(\.offset) == [1, 3, 2])
        #expect(abs(matches[2].score - 0.6) < 1e-6)
        // Dot differs from cosine for vectors that are not of length 1.
        let scaled: [[Float]] = [[3, 0], [0.9, 0.1]]
        #expect(try VectorSimilarity.mostSimilar(to: [1, 0], in: scaled, count: 1, metric: .dot).first?.score == 3)
        #expect(try VectorSimilarity.mostSimilar(to: [1, 0], in: scaled, count: 0).isEmpty)
        #expect(try VectorSimilarity.mostSimilar(to: [1, 0], in: scaled, count: 10).count == 2)
    }

    @Test("Vectors of different lengths and a negative count are typed errors")
    func errors() throws {
        #expect(throws: VectorSimilarity.Error.dimensionMismatch(expected: 2, actual: 3)) {
            try VectorSimilarity.cosine([1, 0], [1, 0, 0])
        }
        #expect(throws: VectorSimilarity.Error.dimensionMismatch(expected: 2, actual: 1)) {
            try VectorSimilarity.dot([1, 0], [1])
        }
        #expect(throws: VectorSimilarity.Error.dimensionMismatch(expected: 2, actual: 3)) {
            try VectorSimilarity.mostSimilar(to: [1, 0], in: [[1, 0], [1, 0, 0]], count: 1)
        }
        #expect(throws: VectorSimilarity.Error.negativeCount(-1)) {
            try VectorSimilarity.mostSimilar(to: [1, 0], in: [[1, 0]], count: -1)
        }
        #expect(VectorSimilarity.Error.dimensionMismatch(expected: 384, actual: 896).localizedDescription
            .contains("384 and 896"))
    }
}
