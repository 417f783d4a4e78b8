import Foundation
import LocalLLMKit

/// `llmkit import`: adds a local GGUF file to the library.
enum ImportCommand {
    static let spec = CommandSpec(
        name: "import",
        usage: "usage: llmkit import PATH [--move] [--name NAME] [--json]",
        help: """
        Add a GGUF file to the library: its header is checked and its SHA-256 computed.
        Importing the same file twice gives one model. A symbolic link (as in the Hugging
        Face cache) is followed: the file it points to is copied.

          --move       move the file instead of copying it (refused for a symbolic link)
          --name NAME  the display name (default: the file's general.name); no control
                       characters, at most 200
          --json       print the registered model as JSON
          -h, --help   show this help
        """,
        valueOptions: ["--name"],
        flagOptions: ["--move", "--json"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let path = arguments.positionals.first else { throw UsageError(message: "missing PATH of a .gguf file") }
        let library = ModelLibrary()
        let record = try await library.importModel(at: URL(filePath: path), moving: arguments.has("--move"),
                                                   name: arguments.value("--name"))
        if arguments.has("--json") {
            try Console.printJSON(ModelReport(record, in: library))
        } else {
            Console.message("imported \(record.name), \(ByteCount.format(record.bytes)), sha256 \(record.sha256)")
            Console.out(record.id + "\n")
        }
        return .success
    }
}
