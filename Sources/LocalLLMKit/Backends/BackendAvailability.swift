/// Whether a ``ModelBackend`` can answer now.
public enum BackendAvailability: Sendable, Equatable, CustomStringConvertible {
    /// It can answer.
    case available
    /// It cannot, for `reason` (a missing model file, a server that does not answer…).
    case unavailable(reason: String)

    /// Whether it can answer.
    public var isAvailable: Bool { self == .available }

    /// "available", or "unavailable: REASON".
    public var description: String {
        switch self {
        case .available: "available"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }
}
