import Foundation
import LocalLLMKit

/// An error answered in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}` with
/// the HTTP status OpenAI uses for it.
struct APIError: Error, Sendable, Equatable {
    var status: Int
    var message: String
    var type: String
    var param: String?
    var code: String?
    /// Extra headers (`Retry-After`, `WWW-Authenticate`).
    var headers: [(String, String)]

    init(status: Int, message: String, type: String, param: String?, code: String?, headers: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers
    }

    static func == (lhs: APIError, rhs: APIError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message && lhs.type == rhs.type && lhs.param == rhs.param
            && lhs.code == rhs.code
    }

    /// A request OpenAI would reject: a missing, malformed or out-of-range parameter.
    static func invalid(_ message: String, param: String? = nil, code: String? = nil) -> APIError {
        APIError(status: 400, message: message, type: "invalid_request_error", param: param, code: code)
    }

    static func notFound(_ message: String, param: String? = nil, code: String? = nil) -> APIError {
        APIError(status: 404, message: message, type: "invalid_request_error", param: param, code: code)
    }

    static let unauthorized = APIError(status: 401, message: "Incorrect or missing API key: send it as `Authorization: Bearer KEY`.",
                                       type: "invalid_request_error", param: nil, code: "invalid_api_key",
                                       headers: [("WWW-Authenticate", "Bearer")])

    static func methodNotAllowed(_ method: String, path: String, allowed: [String]) -> APIError {
        APIError(status: 405, message: "\(method) is not allowed on \(path); use \(allowed.joined(separator: " or ")).",
                 type: "invalid_request_error", param: nil, code: "method_not_allowed",
                 headers: [("Allow", allowed.joined(separator: ", "))])
    }

    /// A `Host` header that names none of the server's names: a page that rebinds its own domain
    /// to this server's address is refused this way.
    static func forbiddenHost(_ host: String) -> APIError {
        let shown = String(host.prefix(100).filter { !$0.isNewline && $0 != "\"" })
        return APIError(status: 403, message: "This server does not answer to the host '\(shown)'. It answers to localhost, "
                        + "IP addresses and the names it was given (`llmkit serve --allowed-host \(shown)`).",
                        type: "invalid_request_error", param: nil, code: "host_not_allowed")
    }

    /// A POST whose body is not declared JSON.
    static func unsupportedMediaType(_ contentType: String?) -> APIError {
        let given = contentType.map { "'\(String($0.prefix(100).filter { !$0.isNewline && $0 != "\"" }))'" } ?? "none"
        return APIError(status: 415, message: "The request body must be JSON, sent with `Content-Type: application/json` "
                        + "(this request had \(given)); with curl, add -H 'Content-Type: application/json'.",
                        type: "invalid_request_error", param: nil, code: "unsupported_media_type")
    }

    static func busy(queued: Int, retryAfter: Int) -> APIError {
        APIError(status: 429, message: "The server is busy: every sequence is generating and \(queued) requests are queued. Retry in \(retryAfter) s.",
                 type: "rate_limit_error", param: nil, code: "rate_limit_exceeded",
                 headers: [("Retry-After", String(retryAfter))])
    }

    static func server(_ message: String) -> APIError {
        APIError(status: 500, message: message, type: "server_error", param: nil, code: nil)
    }

    /// A model that cannot be loaded now (no memory for it while the others are busy).
    static func unavailable(_ message: String) -> APIError {
        APIError(status: 503, message: message, type: "server_error", param: "model", code: "model_unavailable",
                 headers: [("Retry-After", "5")])
    }

    static let shuttingDown = APIError(status: 503, message: "The server is shutting down.", type: "server_error",
                                       param: nil, code: "shutting_down", headers: [("Connection", "close")])

    /// The JSON body.
    var body: String {
        OrderedJSON.object([("error", .object([
            ("message", .string(message)), ("type", .string(type)),
            ("param", param.map(OrderedJSON.string) ?? .null), ("code", code.map(OrderedJSON.string) ?? .null),
        ]))]).serialized()
    }

    /// The API error for an error thrown while serving a request: what the client did wrong is
    /// a 400 that names it; anything else is a 500.
    init(_ error: any Swift.Error) {
        if let api = error as? APIError {
            self = api
            return
        }
        let description = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        switch error {
        case LocalModel.Error.promptTooLong, LocalModel.Error.responseLengthExceedsContext:
            self = .invalid(description, param: "messages", code: "context_length_exceeded")
        case LocalModel.Error.invalidOption(let name, _):
            self = .invalid(description, param: name)
        case LocalModel.Error.emptyPrompt:
            self = .invalid(description, param: "prompt")
        case LocalModel.Error.busy(let queued):
            self = .busy(queued: queued, retryAfter: 1)
        case OutputFormat.Error.invalidSchema:
            self = .invalid(description, param: "response_format")
        case OutputFormat.Error.invalidGrammar:
            self = .invalid(description, param: "grammar")
        case Conversation.Error.invalidTool(let name, _):
            self = .invalid(description, param: "tools", code: name.isEmpty ? nil : "invalid_tool")
        case Conversation.Error.invalidToolChoice:
            self = .invalid(description, param: "tool_choice")
        case is MediaAttachment.Error, LocalModel.Error.noProjector, LocalModel.Error.speculationUnsupported:
            self = .invalid(description, param: "messages")
        case is ChatTemplate.Error:
            self = .invalid(description, param: "messages")
        case is LoadedModels.Error, LocalModel.Error.insufficientMemory:
            self = .unavailable(description)
        case LocalModel.Error.cannotGenerate(_, let reason):
            self = .cannotGenerate(model: nil, reason: reason)
        case let failure as LocalModel.EmbeddingError:
            self = .embedding(failure, model: nil)
        case ModelLibrary.Error.modelNotFound, ModelLibrary.Error.notDownloaded:
            self = .notFound(description, param: "model", code: "model_not_found")
        case ModelLibrary.Error.invalidReference, ModelLibrary.Error.invalidName, ModelLibrary.Error.nameTaken,
             ModelLibrary.Error.ambiguousName, ModelLibrary.Error.readOnlyModel, ModelLibrary.Error.checksumForSplitModel:
            self = .invalid(description, param: "model")
        default:
            self = .server(description)
        }
    }
}
