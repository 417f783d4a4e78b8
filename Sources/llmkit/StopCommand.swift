import Foundation
import LocalLLMKit

/// `llmkit stop MODEL`: unloads a model from a running `llmkit serve` (its
/// `POST /v1/models/unload`), as `ollama stop` does.
enum StopCommand {
    static let spec = CommandSpec(
        name: "stop",
        usage: "usage: llmkit stop MODEL [--url URL] [--api-key KEY] [--json]",
        help: """
        Unload MODEL (its served name, as `llmkit ps` lists it) from a running `llmkit serve`: its
        memory is freed once the requests in flight on it end, and the next request for it loads it
        again. A model that is not loaded is an error.

        \(ServerClient.help)
          --json         print the server's answer as it is
          -h, --help     show this help
        """,
        valueOptions: ServerClient.valueOptions,
        flagOptions: ["--json"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let name = arguments.positionals.first else { throw UsageError(message: "missing MODEL (`llmkit ps` lists them)") }
        let body = try JSONSerialization.data(withJSONObject: ["model": name])
        let (status, data, url) = try await ServerClient.send("models/unload", body: body, arguments)
        guard status == 200 else {
            let reason = ServerClient.errorMessage(in: data) ?? "status \(status)"
            throw ServerClient.Failure(message: "\(url.absoluteString): \(reason)" + (status == 401 ? " (give --api-key)" : ""))
        }
        if arguments.has("--json") {
            Console.out(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            Console.message("unloaded \(TerminalText.escaped(name))")
        }
        return .success
    }
}
