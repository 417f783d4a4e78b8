import Foundation
import LocalLLMKit

/// `llmkit import`: adds a local GGUF file to the library.
enum ImportCommand {
    static let spec = CommandSpec(
        name: "import",
        usage: "usage: llmkit import PATH [--move] [--name NAME] [--json]",
        help: """
        Add a GGUF file to the library: its header is checked and its SHA-256 computed.
        Importing the same file twice gives one model: stderr says "already in the library
        as ID", stdout prints its id (or its JSON), and --name renames it. A symbolic link
        (as in the Hugging Face cache) is followed: the file it points to is copied. On a
        terminal a progress line shows the copy (or, with --move, the hashing).

          --move       move the file instead of copying it (refused for a symbolic link)
          --name NAME  the display name (default: the file's general.name, else its file
                       name, when no other model or catalog id holds it); no control
                       characters, at most 200; not default, a path, a selection (library:…),
                       another model's id or name, or a catalog id unless the file is that
                       model; renames a model already in the library
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
        let view = ImportProgressView()
        let addition: ModelLibrary.Addition
        do {
            addition = try await library.add(importing: URL(filePath: path), moving: arguments.has("--move"),
                                             name: arguments.value("--name"), progress: { view.show($0) })
        } catch {
            view.finish()
            throw error
        }
        view.finish()
        let record = try await DuplicateModel.report(addition, name: arguments.value("--name"), in: library)
        if arguments.has("--json") {
            try Console.printJSON(ModelReport(record, in: library))
        } else {
            if !addition.wasAlreadyInLibrary {
                Console.message("imported \(record.name), \(ByteCount.format(record.bytes)), sha256 \(record.sha256)")
            }
            Console.out(record.id + "\n")
        }
        return .success
    }
}
