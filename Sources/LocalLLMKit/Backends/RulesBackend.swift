import Foundation

/// A ``ModelBackend`` that answers with plain code: a closure from the request to text, and for
/// structured requests, closures that make a value of the type asked for. The last resort of an
/// ``Assistant``: it runs everywhere, instantly, with no model.
///
/// ```swift
/// struct Weather: Decodable, Sendable { var city: String; var celsius: Int }
/// let rules = RulesBackend { request in request.prompt.contains("hello") ? "Hello!" : nil }
///     .answering(Weather.self) { request in Weather(city: "Paris", celsius: 21) }
/// ```
public struct RulesBackend: ModelBackend {
    /// Answers a request with text, or nil when no rule applies.
    public typealias TextRule = @Sendable (BackendRequest) async throws -> String?

    private let text: TextRule
    private var values: [ObjectIdentifier: @Sendable (BackendRequest) async throws -> (any Sendable)?] = [:]
    public let name: String

    /// Rules that answer text with `text`.
    public init(name: String = "rules", text: @escaping TextRule) {
        self.name = name
        self.text = text
    }

    /// These rules, answering requests for a `T` with `rule` (nil: no rule applies).
    public func answering<T: Decodable & Sendable>(_ type: T.Type,
                                                    with rule: @escaping @Sendable (BackendRequest) async throws -> T?) -> RulesBackend {
        var copy = self
        copy.values[ObjectIdentifier(type)] = { try await rule($0) }
        return copy
    }

    /// Always available.
    public func availability() async -> BackendAvailability { .available }

    public func streamResponse(to request: BackendRequest) -> Conversation.ResponseStream {
        Conversation.ResponseStream { emit in
            let response = try await respond(to: request)
            emit(.text(response.text))
            return response
        }
    }

    /// The text rule's answer.
    /// - Throws: ``Error/noRule(prompt:)`` when it returns nil.
    public func respond(to request: BackendRequest) async throws -> ModelResponse<String> {
        guard let answer = try await text(request) else { throw Error.noRule(prompt: request.prompt) }
        return ModelResponse(content: answer, text: answer)
    }

    /// The value rule for `T`'s answer; without one, the text rule's answer decoded as JSON.
    /// - Throws: ``Error/noRule(prompt:)``, or ``OutputFormat/Error/invalidOutput(raw:reason:)``
    ///   when the text does not decode.
    public func respond<T: Decodable & Sendable>(to request: BackendRequest, generating type: T.Type) async throws -> ModelResponse<T> {
        if let rule = values[ObjectIdentifier(type)] {
            guard let value = try await rule(request) as? T else { throw Error.noRule(prompt: request.prompt) }
            return ModelResponse(content: value, text: String(describing: value))
        }
        let answer = try await respond(to: request)
        let value = try StructuredDecoding.decode(T.self, from: answer.text, stopReason: .endOfText)
        return ModelResponse(content: value, text: answer.text)
    }

    /// Why rules did not answer.
    public enum Error: Swift.Error, Equatable, LocalizedError {
        /// No rule answers `prompt`.
        case noRule(prompt: String)

        /// A one-line description that names what was wrong.
        public var errorDescription: String? {
            switch self {
            case .noRule(let prompt): "no rule answers \(String(reflecting: String(prompt.prefix(80))))"
            }
        }
    }
}
