import Foundation

extension VectorSimilarity {
    /// What can go wrong while comparing vectors.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// Two vectors to compare have different lengths: `expected` (the first, or the query)
        /// and `actual`. Vectors of different models (or poolings) cannot be compared.
        case dimensionMismatch(expected: Int, actual: Int)
        /// ``VectorSimilarity/mostSimilar(to:in:count:metric:)`` was asked for a negative number of results.
        case negativeCount(Int)
    }
}

extension VectorSimilarity.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .dimensionMismatch(let expected, let actual):
            return "vectors of different lengths cannot be compared: \(expected) and \(actual) dimensions"
        case .negativeCount(let count):
            return "cannot return \(count) matches: the count must be 0 or more"
        }
    }
}
