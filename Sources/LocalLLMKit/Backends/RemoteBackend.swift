import Foundation

/// A ``ModelBackend`` over a model served by an OpenAI-compatible server (``RemoteModel``):
/// `llmkit serve`, llama-server, vLLM, Ollama, OpenAI. Structured answers ask for
/// `response_format: json_schema`.
///
/// ```swift
/// let remote = RemoteBackend(model: try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen"))
/// ```
public struct RemoteBackend: ModelBackend {
    /// The server and model.
    public let model: RemoteModel
    /// How long ``availability()`` waits for the server's list of models.
    public let availabilityTimeout: Duration
    public var name: String { "remote \(model.baseURL.absoluteString) \(model.model)" }

    /// A backend over `model`.
    public init(model: RemoteModel, availabilityTimeout: Duration = .seconds(2)) {
        self.model = model
        self.availabilityTimeout = availabilityTimeout
    }

    /// Available when the server lists its models within ``availabilityTimeout``.
    public func availability() async -> BackendAvailability {
        let model = model
        let answer: Result<[String], any Error>? = await withTaskGroup(of: Result<[String], any Error>?.self) { group in
            group.addTask {
                do { return .success(try await model.availableModels()) } catch { return .failure(error) }
            }
            group.addTask { [availabilityTimeout] in
                try? await Task.sleep(for: availabilityTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch answer {
        case .success?: return .available
        case .failure(let error)?:
            return .unavailable(reason: "\(model.baseURL.absoluteString) did not list its models: "
                                + ((error as? LocalizedError)?.errorDescription ?? "\(error)"))
        case nil:
            return .unavailable(reason: "\(model.baseURL.absoluteString) did not answer within \(availabilityTimeout)")
        }
    }

    public func streamResponse(to request: BackendRequest) -> Conversation.ResponseStream {
        .relaying { try conversation(for: request).streamResponse(to: request.prompt, options: request.options) }
    }

    public func respond(to request: BackendRequest) async throws -> ModelResponse<String> {
        try await conversation(for: request).respond(to: request.prompt, options: request.options)
    }

    public func respond<T: Decodable & Sendable>(to request: BackendRequest, generating type: T.Type) async throws -> ModelResponse<T> {
        try await conversation(for: request).respond(to: request.prompt, generating: type, options: request.options)
    }

    private func conversation(for request: BackendRequest) throws -> RemoteConversation {
        try RemoteConversation(model: model, transcript: request.transcript, tools: request.tools)
    }
}
