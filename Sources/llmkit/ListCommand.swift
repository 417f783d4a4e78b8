import Foundation
import LocalLLMKit

/// `llmkit list`: the library's models and those found in the Hugging Face and Ollama caches.
enum ListCommand {
    static let spec = CommandSpec(
        name: "list",
        usage: "usage: llmkit list [--catalog] [--json | --format json]",
        help: """
        List every model that --model finds: those of the library, those scripts/bootstrap
        installed (`default` and, by their catalog ids, Gemma 3 270M, the Qwen2.5-Coder models
        and all-MiniLM-L6-v2, where their files are there), then those found in the Hugging Face
        hub cache ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub) and Ollama's store
        ($OLLAMA_MODELS, ~/.ollama/models). SOURCE says where each lives; all but the library's
        are read-only. Any ID or NAME works with --model. Also `llmkit ls`.

          --catalog   instead: the models LocalLLMKit knows (its catalog), whether each is installed,
                      how to get it, and the one recommended for this machine's available memory
                      (the largest chat model that fits, marked *)
          --json      print an array of objects (id, name, path, bytes, sha256, source, read_only, selection;
                      with --catalog: id, name, bytes, sha256, license, origin, recommended_memory_bytes,
                      follows_instructions, calls_tools, embedding_model, installed_path, downloadable,
                      recommended); also --format json
          -h, --help  show this help
        """,
        flagOptions: ["--json", "--catalog"]
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        if arguments.has("--catalog") { return try await CatalogListing.run(json: arguments.has("--json")) }
        let entries = try await ModelLibrary().entries()
        if arguments.has("--json") {
            try Console.printJSON(entries.map(ModelReport.init))
            return .success
        }
        guard !entries.isEmpty else {
            Console.err("no models; add one with `llmkit pull gemma-3-270m` or `llmkit import FILE.gguf`\n")
            return .success
        }
        let rows = [("ID", "SIZE", "SOURCE", "NAME")] + entries.map { entry in
            (TerminalText.escaped(entry.id), ByteCount.format(entry.bytes),
             entry.source.rawValue + (entry.isReadOnly ? " (read-only)" : ""), TerminalText.escaped(entry.name))
        }
        let idWidth = rows.map(\.0.count).max() ?? 0, sizeWidth = rows.map(\.1.count).max() ?? 0
        let sourceWidth = rows.map(\.2.count).max() ?? 0
        for row in rows {
            Console.out([row.0.padding(toLength: idWidth, withPad: " ", startingAt: 0),
                         String(repeating: " ", count: sizeWidth - row.1.count) + row.1,
                         row.2.padding(toLength: sourceWidth, withPad: " ", startingAt: 0), row.3].joined(separator: "  ") + "\n")
        }
        return .success
    }
}
