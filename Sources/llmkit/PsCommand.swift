import Foundation
import LocalLLMKit

/// `llmkit ps`: the models a running `llmkit serve` has loaded (its `GET /v1/ps`).
enum PsCommand {
    static let spec = CommandSpec(
        name: "ps",
        usage: "usage: llmkit ps [--url URL] [--api-key KEY] [--json]",
        help: """
        List the models a running `llmkit serve` has loaded now: name, memory, context, and when
        an idle model will be unloaded (serve --keep-alive).

        \(ServerClient.help)
          --json         print the server's answer as it is
          -h, --help     show this help
        """,
        valueOptions: ServerClient.valueOptions,
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
        let (status, data, url) = try await ServerClient.send("ps", arguments)
        guard status == 200, let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
            throw ServerClient.Failure(message: "\(url.absoluteString) answered \(status), not a list of loaded models"
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
        for line in ColumnTable.lines(lines) { Console.out(TerminalText.escaped(line) + "\n") }
        return .success
    }
}
