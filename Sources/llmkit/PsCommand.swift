import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalLLMKit

/// `llmkit ps`: the models a running `llmkit serve` has loaded (its `GET /v1/ps`).
enum PsCommand {
    static let spec = CommandSpec(
        name: "ps",
        usage: "usage: llmkit ps [--url URL] [--api-key KEY] [--json]",
        help: """
        List the models a running `llmkit serve` has loaded now: name, memory, context, and when
        an idle model will be unloaded (serve --keep-alive).

          --url URL      the server's API (default http://127.0.0.1:8080/v1)
          --api-key KEY  the server's key (also $LLMKIT_API_KEY)
          --json         print the server's answer as it is
          -h, --help     show this help
        """,
        valueOptions: ["--url", "--api-key"],
        flagOptions: ["--json"]
    )

    struct Answer: Decodable {
        struct Row: Decodable {
            var name: String
            var model: String
            var size: Int64
            var expires_at: String?
            var context_length: Int
            var parallel_sequences: Int
        }
        var models: [Row]
    }

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let base = arguments.value("--url") ?? "http://127.0.0.1:8080/v1"
        guard let url = URL(string: base.hasSuffix("/") ? base + "ps" : base + "/ps"), let scheme = url.scheme,
              ["http", "https"].contains(scheme) else {
            throw UsageError(message: "--url takes the server's API address, such as http://127.0.0.1:8080/v1, not \(base)")
        }
        var request = URLRequest(url: url, timeoutInterval: 10)
        if let key = arguments.value("--api-key") ?? ProcessInfo.processInfo.environment["LLMKIT_API_KEY"], !key.isEmpty {
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw PsError(message: "no server answers at \(url.absoluteString): \(SystemErrorText.describe(error))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200, data.count <= 1 << 20, let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
            throw PsError(message: "\(url.absoluteString) answered \(status), not a list of loaded models"
                          + (status == 401 ? " (give --api-key)" : ""))
        }
        if arguments.has("--json") {
            Console.out(String(decoding: data, as: UTF8.self) + "\n")
            return .success
        }
        var lines = [["NAME", "SIZE", "CONTEXT", "SEQUENCES", "UNTIL"]]
        lines += answer.models.map { row in
            [row.name, ByteCount.format(row.size), "\(row.context_length)", "\(row.parallel_sequences)", row.expires_at ?? "forever"]
        }
        let widths = (0..<5).map { column in lines.map { $0[column].count }.max() ?? 0 }
        for line in lines {
            let padded = zip(line, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            Console.out(TerminalText.escaped(padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces)) + "\n")
        }
        return .success
    }

    /// A server that does not answer as `llmkit serve` does.
    struct PsError: LocalizedError {
        let message: String
        var errorDescription: String? { message }
    }
}
