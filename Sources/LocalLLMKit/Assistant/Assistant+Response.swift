import Foundation

extension Assistant {
    /// The answer of the first tier that gave one, and why the tiers before it did not.
    public struct Response<Content: Sendable>: Sendable {
        /// The answer, as its backend returned it (text, statistics, tool calls).
        public var response: ModelResponse<Content>
        /// The index of the tier that answered.
        public var tier: Int
        /// The name of its backend.
        public var backendName: String
        /// The tiers skipped before it, in order, with their reasons.
        public var skipped: [Skip]

        /// The answer's content: the decoded value, or the text.
        public var content: Content { response.content }
    }

    /// A tier that did not answer, and why.
    public struct Skip: Sendable, Equatable, CustomStringConvertible {
        /// The tier's index.
        public var tier: Int
        /// Its backend's name.
        public var backendName: String
        /// Why it was skipped.
        public var reason: SkipReason

        /// "tier 0 (local qwen…): unavailable: …".
        public var description: String { "tier \(tier) (\(backendName)): \(reason)" }
    }

    /// Why a tier was skipped.
    public enum SkipReason: Sendable, Equatable, CustomStringConvertible {
        /// It was not available (a missing model file, a server that does not answer).
        case unavailable(String)
        /// It failed with this error description.
        case failed(String)
        /// It did not answer within its timeout.
        case timedOut(Duration)
        /// Its answer did not decode into the type asked for.
        case undecodable(String)

        /// What happened, in one line.
        public var description: String {
            switch self {
            case .unavailable(let reason): "unavailable: \(reason)"
            case .failed(let reason): "failed: \(reason)"
            case .timedOut(let limit): "timed out after \(limit)"
            case .undecodable(let reason): "undecodable answer: \(reason)"
            }
        }

        /// The reason for `error`, thrown by a tier with `timeout`.
        init(_ error: any Swift.Error, timeout: Duration?) {
            let description = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
            switch error {
            case is Assistant.DeadlineExceeded: self = .timedOut(timeout ?? .zero)
            case OutputFormat.Error.invalidOutput, OutputFormat.Error.incompleteOutput, is DecodingError:
                self = .undecodable(description)
            default: self = .failed(description)
            }
        }
    }
}
