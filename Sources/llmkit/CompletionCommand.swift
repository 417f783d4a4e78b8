import LocalLLMKit

/// `llmkit completion bash|zsh|fish`: prints a shell completion script for `llmkit`.
enum CompletionCommand {
    /// The command's options and help.
    static let spec = CommandSpec(
        name: "completion",
        usage: "usage: llmkit completion bash|zsh|fish",
        help: """
        Print a completion script for the shell: the commands, each command's options, and
        template names after --chat-template. Load it with
          bash:  source <(llmkit completion bash)       (or save it in ~/.local/share/bash-completion/completions/llmkit)
          zsh:   source <(llmkit completion zsh)        (after compinit; or save it as _llmkit in a folder of $fpath)
          fish:  llmkit completion fish | source        (or save it as ~/.config/fish/completions/llmkit.fish)

          -h, --help  show this help
        """,
        maximumPositionals: 1
    )

    /// Prints the script of the shell named by the one argument.
    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let shells = CompletionScript.Shell.allCases.map(\.rawValue)
        guard let name = arguments.positionals.first else {
            throw UsageError(message: "missing the shell: \(shells.joined(separator: ", "))")
        }
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            let hint = Suggestion.nearest(to: name, in: shells).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError(message: "unknown shell '\(name)'; the shells are \(shells.joined(separator: ", "))\(hint)")
        }
        // Only names a shell cannot expand: a completion word list is evaluated by bash and fish.
        let names = [TemplateChoice.listRequest] + TemplateChoice.installedNames() + ChatTemplate.builtinNames().sorted()
        let safe = names.filter { $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) } }
        let script = CompletionScript(commands: LLMKitCommand.overview.compactMap { entry in
            LLMKitCommand.commands[entry.name].map { CompletionScript.Command(spec: $0, summary: entry.summary) }
        }, templateNames: safe)
        Console.out(script.script(for: shell))
        return .success
    }
}
