import Foundation

extension Assistant {
    /// Why no tier answered.
    public enum Error: Swift.Error, Equatable, LocalizedError {
        /// No tier was available; each tier's reason, in order.
        case noTierAvailable([Skip])
        /// Every tier was skipped, and at least one was tried; each tier's reason, in order.
        case allTiersFailed([Skip])

        /// A one-line description with every tier's reason.
        public var errorDescription: String? {
            switch self {
            case .noTierAvailable(let skipped):
                "no tier is available: " + skipped.map(\.description).joined(separator: "; ")
            case .allTiersFailed(let skipped):
                "no tier answered: " + skipped.map(\.description).joined(separator: "; ")
            }
        }
    }
}
