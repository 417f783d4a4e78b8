import Foundation
import LocalLLMKit

/// `llmkit cache list|clear`: the prompt cache on disk that `run`, `chat` and `serve` fill.
enum CacheCommand {
    static let spec = CommandSpec(
        name: "cache",
        usage: "usage: llmkit cache list [--json] | llmkit cache clear",
        help: """
        The prompt cache of `run`, `chat` and `serve` (on unless --no-prompt-cache): evaluated
        prompts of 256 tokens or more kept in $LLMKIT_HOME/cache/prompts (2 GiB at most, the
        least recently used go first), so that a later process starts from them.

          list         each entry: its tokens, size and when it was last used, the newest first
          clear        remove every entry
          --json       list as JSON lines ({"path", "tokens", "bytes", "last_used"})
          -h, --help   show this help
        """,
        flagOptions: ["--json"],
        maximumPositionals: 1
    )

    /// One entry as `--json` prints it.
    struct Row: Encodable {
        var path: String
        var tokens: Int
        var bytes: Int64
        var lastUsed: String
    }

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let folder = PromptCacheFolder.standard()
        switch arguments.positionals {
        case ["list"]:
            let entries = PromptCacheFolder.entries(in: folder)
            let formatter = ISO8601DateFormatter()
            if arguments.has("--json") {
                for entry in entries {
                    try Console.printJSONLine(Row(path: entry.url.path, tokens: entry.tokenCount, bytes: entry.bytes,
                                                  lastUsed: formatter.string(from: entry.lastUsed)))
                }
                return .success
            }
            var lines = [["ENTRY", "TOKENS", "SIZE", "LAST USED"]]
            lines += entries.map { entry in
                [String(entry.url.deletingPathExtension().lastPathComponent.prefix(12)), "\(entry.tokenCount)",
                 ByteCount.format(entry.bytes), formatter.string(from: entry.lastUsed)]
            }
            for line in ColumnTable.lines(lines) { Console.out(line + "\n") }
            let total = entries.reduce(Int64(0)) { $0 + $1.bytes }
            Console.message("\(entries.count) entries, \(ByteCount.format(total)) in \(folder.path)")
            return .success
        case ["clear"]:
            let removed = PromptCacheFolder.clear(folder)
            Console.message("removed \(removed.files) entries (\(ByteCount.format(removed.bytes))) from \(folder.path)")
            return .success
        default:
            throw UsageError(message: "llmkit cache takes list or clear\n\(spec.usage)")
        }
    }
}
