import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RemoteModel {
    /// What can go wrong when talking to a server: a refused request, an unreachable or silent
    /// server, or an answer that breaks the protocol or the ``Limits``.
    ///
    /// ```swift
    /// do {
    ///     _ = try await conversation.respond(to: "Hi")
    /// } catch RemoteModel.Error.unauthorized(let message) {
    ///     print("check the API key: \(message)")
    /// } catch let error as RemoteModel.Error {
    ///     print(error.localizedDescription)
    /// }
    /// ```
    /// Each case says what was wrong; `errorDescription` says it in one line.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// A ``RemoteModel`` or ``Configuration`` value cannot work; `name` is its property path.
        case invalidConfiguration(name: String, reason: String)
        /// The server refused the request with an HTTP error status; `type` and `message` come
        /// from its OpenAI-style body `{"error": {"message", "type", …}}` when it sent one.
        case http(status: Int, type: String?, message: String)
        /// The server wants a valid API key (HTTP 401).
        case unauthorized(message: String)
        /// The server still answered 429 (too many requests) after the retries; `retryAfter` is
        /// how long it asked to wait, when it said.
        case rateLimited(retryAfter: Duration?)
        /// The server could not be reached, or the connection broke; `reason` names the cause.
        case transport(reason: String)
        /// The server stayed silent longer than ``Configuration/requestTimeout``, or the request
        /// took longer than ``Configuration/deadline``; `after` is that limit.
        case timedOut(after: Duration)
        /// The server's answer is not what the API describes, or it exceeds a ``Limits`` bound.
        case invalidResponse(reason: String)
        /// The server reported an error in the middle of a streamed answer.
        case serverError(type: String?, message: String)
    }
}

extension RemoteModel.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let name, let reason):
            return "invalid value for \(name): \(reason)"
        case .http(let status, let type, let message):
            return "the server answered HTTP \(status)\(type.map { " (\($0))" } ?? ""): \(message)"
        case .unauthorized(let message):
            return "the server refused the API key (HTTP 401): \(message)"
        case .rateLimited(let retryAfter):
            return "the server is rate-limiting requests (HTTP 429)" + (retryAfter.map { "; it asked to wait \($0)" } ?? "")
        case .transport(let reason):
            return "cannot talk to the server: \(reason)"
        case .timedOut(let limit):
            return "the server did not answer in time (the limit was \(limit))"
        case .invalidResponse(let reason):
            return "the server's answer is not valid: \(reason)"
        case .serverError(let type, let message):
            return "the server failed while answering\(type.map { " (\($0))" } ?? ""): \(message)"
        }
    }
}

extension RemoteModel.Error {
    /// The error an HTTP error response stands for, from its status, its body (OpenAI's
    /// `{"error": {"message", "type", "param", "code"}}`, or a bare `{"error": "…"}`,
    /// `{"message": "…"}` or `{"detail": "…"}`, or text) and its `Retry-After`.
    static func response(status: Int, body: Data, retryAfter: Duration?) -> RemoteModel.Error {
        let (type, message) = describe(body: body, status: status)
        switch status {
        case 401: return .unauthorized(message: message)
        case 429: return .rateLimited(retryAfter: retryAfter)
        default: return .http(status: status, type: type, message: message)
        }
    }

    /// The type and message of an error body, or the status's name when it has none.
    static func describe(body: Data, status: Int?) -> (type: String?, message: String) {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            if let error = object["error"] as? [String: Any] {
                return (error["type"] as? String, Self.clip(error["message"] as? String ?? String(describing: error)))
            }
            for key in ["error", "message", "detail"] {
                if let text = object[key] as? String { return (nil, clip(text)) }
            }
        }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { return (nil, clip(text)) }
        return (nil, status.map { HTTPURLResponse.localizedString(forStatusCode: $0).lowercased() } ?? "no details")
    }

    /// A server's message, cut to a length that fits one line of a log.
    private static func clip(_ text: String) -> String {
        text.count > 500 ? String(text.prefix(500)) + "…" : text
    }
}
