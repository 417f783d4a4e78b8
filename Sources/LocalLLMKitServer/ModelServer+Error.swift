import Foundation

extension ModelServer {
    /// Why a server could not start.
    public enum Error: Swift.Error, LocalizedError, Equatable {
        /// The address could not be bound (in use, or not an address of this machine).
        case bindFailed(address: String, reason: String)
        /// A configuration value cannot work.
        case invalidConfiguration(name: String, reason: String)
        /// Two served models have the same id, or an id is empty.
        case invalidModelID(String, reason: String)

        /// One line that names what was wrong.
        public var errorDescription: String? {
            switch self {
            case .bindFailed(let address, let reason): return "cannot listen on \(address): \(reason)"
            case .invalidConfiguration(let name, let reason): return "invalid server setting \(name): \(reason)"
            case .invalidModelID(let id, let reason): return "invalid model id '\(id)': \(reason)"
            }
        }
    }
}
