import Foundation

/// Something that answers prompts: a model on this machine (``LocalBackend``), a served one
/// (``RemoteBackend``), plain rules (``RulesBackend``), scripted answers for tests
/// (``ScriptedBackend``), or one of your own. An ``Assistant`` asks its backends in order.
///
/// Every backend answers with the same events and responses as a ``Conversation``; each request
/// carries the whole context (instructions, few-shot examples, tools), so a backend keeps no
/// history between requests.
///
/// ```swift
/// let backend: any ModelBackend = LocalBackend(model: model)
/// if case .unavailable(let reason) = await backend.availability() { print(reason) }
/// let answer = try await backend.respond(to: BackendRequest("What is 2 + 2?"))
/// print(answer.content)
/// ```
///
/// An adapter over Apple's FoundationModels would implement these four requirements with a
/// `LanguageModelSession` (instructions, examples as transcript entries, tools), mapping its
/// availability to ``BackendAvailability``; see docs/serving.md.
public protocol ModelBackend: Sendable {
    /// A short name for reports, e.g. `local smollm2-135m-instruct` or `remote http://127.0.0.1:8080/v1`.
    var name: String { get }

    /// Whether the backend can answer now, and if not, why; asks nothing of a model.
    func availability() async -> BackendAvailability

    /// Streams the answer to `request`: text deltas, tool calls and their results, then `.done`.
    func streamResponse(to request: BackendRequest) -> Conversation.ResponseStream

    /// The whole answer to `request`, as text.
    /// - Throws: what the backend throws: a missing model, a server error, cancellation.
    func respond(to request: BackendRequest) async throws -> ModelResponse<String>

    /// The answer to `request` as a value of type `T`, in the backend's own way: a grammar on a
    /// local model, `response_format` on a server, a rule's value.
    /// - Throws: what the backend throws, or ``OutputFormat/Error/invalidOutput(raw:reason:)``
    ///   when the answer does not decode.
    func respond<T: Decodable & Sendable>(to request: BackendRequest, generating type: T.Type) async throws -> ModelResponse<T>
}

extension ModelBackend {
    /// The whole answer: the stream's result.
    public func respond(to request: BackendRequest) async throws -> ModelResponse<String> {
        try await streamResponse(to: request).result
    }
}
