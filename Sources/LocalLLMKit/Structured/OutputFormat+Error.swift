import Foundation

extension OutputFormat {
    /// What can go wrong with an output format: a schema or grammar that cannot be used, or an
    /// answer that does not decode into the requested type.
    ///
    /// Each case names the property or text at fault; `errorDescription` says it in one line.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// An output schema cannot be met or compiled; `property` is its path, e.g. `Letter.steps`.
        case invalidSchema(property: String, reason: String)
        /// A GBNF grammar that llama.cpp cannot parse.
        case invalidGrammar(reason: String)
        /// The model's output does not decode into the requested type (possible only without a
        /// grammar), or breaks a schema rule that is checked after generation (`uniqueItems` on
        /// items other than listed values).
        case invalidOutput(raw: String, reason: String)
        /// Generation stopped (token limit or cancellation) before the structured answer was complete.
        case incompleteOutput(raw: String, stopReason: StopReason)
    }
}

extension OutputFormat.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .invalidSchema(let property, let reason):
            return "invalid schema at \(property): \(reason)"
        case .invalidGrammar(let reason):
            return "invalid grammar: \(reason)"
        case .invalidOutput(let raw, let reason):
            return "the output does not match the requested type (\(reason)): \(raw.prefix(200))"
        case .incompleteOutput(let raw, let stopReason):
            return "generation stopped (\(stopReason.rawValue)) before the answer was complete: \(raw.suffix(120))"
        }
    }
}
