import Foundation
import LocalLLMKit

/// `llmkit cp`: a second library model with the same weights under another name (Ollama's
/// `ollama cp`), optionally carrying LoRA adapters (what an Ollama Modelfile's `ADAPTER` does).
enum CopyCommand {
    static let spec = CommandSpec(
        name: "cp",
        usage: "usage: llmkit cp SOURCE NAME [--lora FILE[:SCALE],…] [--lora-scaled FILE:SCALE,…] [--json]",
        help: """
        Add a model to the library under NAME with SOURCE's weights (hard-linked, not copied,
        where the volume allows), found in the order that --model finds it; a model outside the
        library (a file, a cache's, the bootstrap's) is imported (with adapters: imported as it
        is, then copied). With --lora or
        --lora-scaled the copy carries those LoRA adapters (copied into its folder, each checked
        against the model first): `llmkit run -m NAME` then loads them with it, as do serve
        and every command that takes --model. SOURCE's own adapters come along.

          --lora FILE[:SCALE],…   adapters at SCALE (default 1); repeatable
          --lora-scaled FILE:SCALE,…  adapters at a scale of their own
          --json                  print the new model's record as JSON
          -h, --help              show this help
        """,
        valueOptions: ["--lora", "--lora-scaled"],
        flagOptions: ["--json"],
        repeatableOptions: ["--lora", "--lora-scaled"],
        maximumPositionals: 2
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.count == 2 else { throw UsageError(message: "give SOURCE and NAME") }
        let (source, name) = (arguments.positionals[0], arguments.positionals[1])
        let library = ModelLibrary()
        // A path names a file outside the library, as --model takes one.
        let isPath = (source.contains("/") || source.hasSuffix(".gguf")) && FileManager.default.fileExists(atPath: source)
        let selection = isPath ? ModelLibrary.Selection.file(URL(filePath: source)).storageValue : source
        let record: ModelLibrary.Record
        do {
            record = try await library.copy(selection, to: name, adapters: try ModelOptions.adapters(arguments))
        } catch ModelLibrary.Error.modelNotFound where ModelCatalog.entry(source) == nil {
            throw ModelNameError(name: source, nearest: Suggestion.nearestNames(to: source, among: await library.knownNames()))
        }
        if arguments.has("--json") {
            try Console.printJSON(ModelReport(record, in: library))
        } else {
            let adapters = record.adapters.map { " with \($0.count) adapter\($0.count == 1 ? "" : "s")" } ?? ""
            Console.message("copied \(source) to \(record.name)\(adapters)")
            Console.out(record.id + "\n")
        }
        return .success
    }
}
