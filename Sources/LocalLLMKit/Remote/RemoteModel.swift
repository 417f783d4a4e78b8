import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A model served over HTTP by any OpenAI-compatible server (llama-server, `llmkit serve`,
/// vLLM, Ollama, OpenAI itself…). Talk to it through a ``RemoteConversation``, which has the
/// same calls, events and responses as a local ``Conversation``.
///
/// ```swift
/// let server = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")
/// print(try await server.availableModels())
/// let conversation = try RemoteConversation(model: server, instructions: "Answer briefly.")
/// print(try await conversation.respond(to: "What is the capital of France?").content)
/// ```
///
/// A value holds no connection: every request opens its own, and retries follow
/// ``Configuration``. It is cheap to copy and safe to share.
public struct RemoteModel: Sendable, Equatable {
    /// The API's base URL, up to and including its version, e.g. `http://127.0.0.1:8080/v1`.
    public let baseURL: URL
    /// The model's id on the server (the `model` field of each request).
    public let model: String
    /// The key sent as `Authorization: Bearer …`, if any.
    public let apiKey: String?
    /// Timeouts, retries and bounds.
    public let configuration: Configuration

    /// Describes a served model; nothing is sent until a request is made.
    /// - Parameters:
    ///   - baseURL: the API's base URL, e.g. `http://127.0.0.1:8080/v1` (`/chat/completions` and
    ///     `/models` are appended to it).
    ///   - model: the model's id on the server.
    ///   - apiKey: a key for servers that want one.
    ///   - configuration: timeouts, retries and bounds.
    /// - Throws: ``RemoteModel/Error/invalidConfiguration(name:reason:)`` for a URL that is not
    ///   http or https, an empty model id, or a configuration value that cannot work.
    public init(baseURL: URL, model: String, apiKey: String? = nil, configuration: Configuration = .init()) throws {
        guard let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme), baseURL.host != nil else {
            throw Error.invalidConfiguration(name: "baseURL", reason: "\(baseURL.absoluteString) is not an http or https URL")
        }
        guard !model.isEmpty else {
            throw Error.invalidConfiguration(name: "model", reason: "the model id is empty")
        }
        if let apiKey, apiKey.isEmpty || apiKey.contains(where: { $0.isNewline }) {
            throw Error.invalidConfiguration(name: "apiKey", reason: "an API key must be one non-empty line")
        }
        try configuration.validate()
        self.baseURL = baseURL
        self.model = model
        self.apiKey = apiKey
        self.configuration = configuration
    }

    /// The ids of the models the server offers (`GET /models`).
    ///
    /// ```swift
    /// let server = try RemoteModel(baseURL: URL(string: "http://127.0.0.1:8080/v1")!, model: "qwen")
    /// let ids = try await server.availableModels()     // ["qwen"]
    /// ```
    /// - Throws: a ``RemoteModel/Error``: ``RemoteModel/Error/unauthorized(message:)`` for a wrong
    ///   key, ``RemoteModel/Error/transport(reason:)`` when the server cannot be reached, and so on.
    public func availableModels() async throws -> [String] {
        let transport = RemoteTransport(model: self)
        let body = try await transport.fetch(transport.request(path: "models", body: nil))
        struct Listing: Decodable {
            struct Entry: Decodable { var id: String }
            var data: [Entry]
        }
        do {
            return try JSONDecoder().decode(Listing.self, from: body).data.map(\.id)
        } catch {
            throw Error.invalidResponse(reason: "the model list is not {\"data\": [{\"id\": …}]}: \(error)")
        }
    }
}
