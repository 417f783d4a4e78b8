import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalLLMKit

/// A request to a running `llmkit serve`, for `ps` and `stop`: `--url` (its API's base
/// address) and `--api-key` (else `$LLMKIT_API_KEY`).
enum ServerClient {
    /// The options it adds to a command.
    static let valueOptions: Set<String> = ["--url", "--api-key"]
    /// Their help text.
    static let help = """
      --url URL      the server's API (default http://127.0.0.1:8080/v1)
      --api-key KEY  the server's key (also $LLMKIT_API_KEY)
    """

    /// A server that is not there, or does not answer as `llmkit serve` does.
    struct Failure: LocalizedError {
        /// What went wrong, in one line.
        let message: String
        var errorDescription: String? { message }
    }

    /// The URL of `endpoint` (such as `ps`) under `--url`.
    /// - Throws: ``UsageError`` for a `--url` that is no http(s) address.
    static func url(_ endpoint: String, _ arguments: ParsedArguments) throws -> URL {
        let base = arguments.value("--url") ?? "http://127.0.0.1:8080/v1"
        guard let url = URL(string: base.hasSuffix("/") ? base + endpoint : base + "/" + endpoint), let scheme = url.scheme,
              ["http", "https"].contains(scheme) else {
            throw UsageError(message: "--url takes the server's API address, such as http://127.0.0.1:8080/v1, not \(base)")
        }
        return url
    }

    /// Sends `body` (JSON; a GET without one) to `endpoint` with the key, and returns the status
    /// and the answer (at most 1 MiB).
    /// - Throws: ``UsageError`` for a bad `--url`; ``Failure`` when no server answers.
    static func send(_ endpoint: String, body: Data? = nil, _ arguments: ParsedArguments) async throws -> (status: Int, data: Data, url: URL) {
        let url = try Self.url(endpoint, arguments)
        var request = URLRequest(url: url, timeoutInterval: 10)
        if let key = arguments.value("--api-key") ?? ProcessInfo.processInfo.environment["LLMKIT_API_KEY"], !key.isEmpty {
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw Failure(message: "no server answers at \(url.absoluteString): \(SystemErrorText.describe(error))")
        }
        guard data.count <= 1 << 20 else { throw Failure(message: "\(url.absoluteString) answered with over 1 MiB") }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data, url)
    }

    /// The `error.message` of an OpenAI-style error answer, if it is one.
    static func errorMessage(in data: Data) -> String? {
        struct Answer: Decodable {
            struct Detail: Decodable { let message: String }
            let error: Detail
        }
        return (try? JSONDecoder().decode(Answer.self, from: data)).map { TerminalText.escaped($0.error.message) }
    }
}
