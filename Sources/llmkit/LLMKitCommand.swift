import Foundation
import LocalLLMKit

/// The `llmkit` command-line tool: a thin layer over LocalLLMKit.
@main
enum LLMKitCommand {
    static let usage = "usage: llmkit <run|chat|prompt|embed|rerank|info|fit|bench|serve|ps|stop|rpc-server|pull|list|show|rm|import|completion> [options]   (llmkit help <command> for details)"

    /// The commands in the overview's order, with the line it shows for each.
    static let overview: [(name: String, summary: String)] = [
        ("run", "generate an answer to a prompt, streamed to stdout"),
        ("chat", "a conversation: interactive, or one message per line from stdin"),
        ("prompt", "print the prompt text a chat template renders for a list of messages"),
        ("embed", "print sentence vectors (JSONL) of texts or stdin lines, with an embedding model"),
        ("rerank", "score documents against a query with a reranker, best first"),
        ("info", "show a GGUF file's metadata without loading its weights"),
        ("fit", "plan how a model fits this machine's memory: context, GPU layers, memory per device"),
        ("bench", "measure prompt and generation throughput (llama-bench's method)"),
        ("serve", "serve models over OpenAI's HTTP API (chat, completions, models, metrics)"),
        ("ps", "list the models a running llmkit serve has loaded"),
        ("stop", "unload a model from a running llmkit serve"),
        ("rpc-server", "offer this machine's devices to models loaded elsewhere (llama.cpp's RPC server)"),
        ("pull", "download a model into the library (resumable, verified)"),
        ("list", "list every model --model finds: the library's, the bootstrap's, the caches' (also ls)"),
        ("show", "show one model of the library, of a cache, or a file"),
        ("rm", "delete a model of the library"),
        ("cp", "copy a library model under another name, optionally with LoRA adapters"),
        ("import", "add a local GGUF file to the library"),
        ("completion", "print a bash, zsh or fish completion script"),
        ("cache", "list or clear the prompt cache on disk that run, chat and serve keep"),
    ]

    /// The overview that `llmkit --help` and `llmkit help` print.
    static let help = """
    llmkit \(LLMKitVersion.current): run GGUF language models locally with LocalLLMKit.

    \(usage)

    commands:
    \(overview.map { "  " + $0.name.padding(toLength: 11, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))
      help CMD   show a command's help (the same as llmkit CMD --help)

    options:
      -h, --help     show this help
      --version      show the versions of llmkit and of the llama.cpp build it runs on

    llama.cpp's flag spellings work where the flag exists: -p, -f, -n, --n-predict, --temp, -r,
    --reverse-prompt, -sys, --system-prompt, -j, --json-schema, --grammar-file, --ctx-size,
    --n-gpu-layers (bench keeps llama-bench's -p, -n and -r).

    exit codes: 0 success, 1 runtime error, 2 usage error, 130 interrupted (Ctrl-C),
    143 terminated (SIGTERM; the work in progress is cancelled cleanly first)
    """

    /// Every command's spec, by name.
    static let commands: [String: CommandSpec] = Dictionary(uniqueKeysWithValues: [
        RunCommand.spec, ChatCommand.spec, PromptCommand.spec, InfoCommand.spec, BenchCommand.spec, PullCommand.spec,
        ListCommand.spec, ShowCommand.spec, RemoveCommand.spec, CopyCommand.spec, ImportCommand.spec, CompletionCommand.spec, ServeCommand.spec,
        EmbedCommand.spec, RerankCommand.spec, FitCommand.spec, PsCommand.spec, StopCommand.spec, RPCServerCommand.spec,
        CacheCommand.spec,
    ].map { ($0.name, $0) })

    /// Other names of commands, as other tools spell them (Ollama's `ls`).
    static let commandAliases = ["ls": ListCommand.spec.name]

    static func main() async {
        _ = InterruptHandler.shared
        let code = await run(Array(CommandLine.arguments.dropFirst()))
        exit(InterruptHandler.shared.wasTerminated ? ExitCode.terminated.rawValue : code.rawValue)
    }

    static func run(_ arguments: [String]) async -> ExitCode {
        guard let typed = arguments.first else {
            Console.err(usage + "\n")
            return .usage
        }
        switch typed {
        case "-h", "--help":
            Console.out(help + "\n")
            return .success
        case "help":
            return showHelp(Array(arguments.dropFirst()))
        case "--version", "version":
            Console.out(versionLine + "\n")
            return .success
        default:
            break
        }
        let name = commandAliases[typed] ?? typed
        guard let spec = commands[name] else { return unknownCommand(typed) }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            Console.out(spec.usage + "\n\n" + spec.help + "\n")
            return .success
        }
        do {
            let parsed = try ParsedArguments(rest, spec: spec)
            if let template = parsed.value("--chat-template") {
                if template == TemplateChoice.listRequest {
                    Console.out(TemplateChoice.listing())
                    return .success
                }
                _ = try TemplateChoice.resolve(template)    // an unknown name fails before a model loads
            }
            switch name {
            case RunCommand.spec.name: return try await RunCommand.run(parsed)
            case ChatCommand.spec.name: return try await ChatCommand.run(parsed)
            case PromptCommand.spec.name: return try await PromptCommand.run(parsed)
            case InfoCommand.spec.name: return try await InfoCommand.run(parsed)
            case PullCommand.spec.name: return try await PullCommand.run(parsed)
            case ListCommand.spec.name: return try await ListCommand.run(parsed)
            case ShowCommand.spec.name: return try await ShowCommand.run(parsed)
            case RemoveCommand.spec.name: return try await RemoveCommand.run(parsed)
            case CopyCommand.spec.name: return try await CopyCommand.run(parsed)
            case ImportCommand.spec.name: return try await ImportCommand.run(parsed)
            case CompletionCommand.spec.name: return try await CompletionCommand.run(parsed)
            case ServeCommand.spec.name: return try await ServeCommand.run(parsed)
            case EmbedCommand.spec.name: return try await EmbedCommand.run(parsed)
            case RerankCommand.spec.name: return try await RerankCommand.run(parsed)
            case FitCommand.spec.name: return try await FitCommand.run(parsed)
            case PsCommand.spec.name: return try await PsCommand.run(parsed)
            case CacheCommand.spec.name: return try await CacheCommand.run(parsed)
            case StopCommand.spec.name: return try await StopCommand.run(parsed)
            case RPCServerCommand.spec.name: return try await RPCServerCommand.run(parsed)
            default: return try await BenchCommand.run(parsed)
            }
        } catch let error as UsageError {
            Console.message("llmkit \(name): \(error.message)")
            Console.err(spec.usage + "\n")
            return .usage
        } catch {
            Console.message("llmkit \(name): \(ErrorWording.describe(error))")
            return .failure
        }
    }

    /// `llmkit --version`: llmkit's version and the llama.cpp build it runs on.
    static var versionLine: String {
        "llmkit \(LLMKitVersion.current) (llama.cpp \(LLMKitVersion.llamaCpp), build \(LLMKitVersion.llamaCppBuildNumber), "
            + "commit \(LLMKitVersion.llamaCppCommit))"
    }

    /// `llmkit help [COMMAND]`: the overview, or one command's help.
    private static func showHelp(_ topics: [String]) -> ExitCode {
        guard let topic = topics.first, topic != "help" else {
            Console.out(help + "\n")
            return .success
        }
        guard topics.count == 1 else {
            Console.message("llmkit help: unexpected argument '\(topics[1])'")
            Console.err("usage: llmkit help [COMMAND]\n")
            return .usage
        }
        guard let spec = commands[commandAliases[topic] ?? topic] else { return unknownCommand(topic) }
        Console.out(spec.usage + "\n\n" + spec.help + "\n")
        return .success
    }

    /// A usage error for a command that does not exist, suggesting the nearest one.
    private static func unknownCommand(_ name: String) -> ExitCode {
        let known = Array(commands.keys) + Array(commandAliases.keys) + ["help", "version", "--help", "--version"]
        let hint = Suggestion.nearest(to: name, in: known).map { "; did you mean '\($0)'?" } ?? ""
        Console.message("llmkit: unknown command '\(name)'\(hint)")
        Console.err(usage + "\n")
        return .usage
    }
}
