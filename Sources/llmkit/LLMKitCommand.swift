import Foundation
import LocalLLMKit

/// The `llmkit` command-line tool: a thin layer over LocalLLMKit.
@main
enum LLMKitCommand {
    static let usage = "usage: llmkit <run|chat|prompt|info|bench|pull|list|show|rm|import> [options]   (llmkit <command> --help for details)"

    static let help = """
    llmkit \(LLMKitVersion.current): run GGUF language models locally with LocalLLMKit.

    \(usage)

    commands:
      run     generate an answer to a prompt, streamed to stdout
      chat    a conversation: interactive, or one message per line from stdin
      prompt  print the prompt text a chat template renders for a list of messages
      info    show a GGUF file's metadata without loading its weights
      bench   measure prompt and generation throughput (llama-bench's method)
      pull    download a model into the library (resumable, verified)
      list    list the library's models and those of the Hugging Face and Ollama caches
      show    show one model of the library, of a cache, or a file
      rm      delete a model of the library
      import  add a local GGUF file to the library

    options:
      -h, --help     show this help
      --version      show the versions of llmkit and llama.cpp

    exit codes: 0 success, 1 runtime error, 2 usage error, 130 interrupted (Ctrl-C)
    """

    static let commands: [String: CommandSpec] = [
        RunCommand.spec.name: RunCommand.spec,
        ChatCommand.spec.name: ChatCommand.spec,
        PromptCommand.spec.name: PromptCommand.spec,
        InfoCommand.spec.name: InfoCommand.spec,
        BenchCommand.spec.name: BenchCommand.spec,
        PullCommand.spec.name: PullCommand.spec,
        ListCommand.spec.name: ListCommand.spec,
        ShowCommand.spec.name: ShowCommand.spec,
        RemoveCommand.spec.name: RemoveCommand.spec,
        ImportCommand.spec.name: ImportCommand.spec,
    ]

    static func main() async {
        _ = InterruptHandler.shared
        let code = await run(Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }

    static func run(_ arguments: [String]) async -> ExitCode {
        guard let name = arguments.first else {
            Console.err(usage + "\n")
            return .usage
        }
        switch name {
        case "-h", "--help", "help":
            Console.out(help + "\n")
            return .success
        case "--version", "version":
            Console.out("llmkit \(LLMKitVersion.current) (llama.cpp \(LLMKitVersion.llamaCpp))\n")
            return .success
        default:
            break
        }
        guard let spec = commands[name] else {
            Console.message("llmkit: unknown command '\(name)'")
            Console.err(usage + "\n")
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            Console.out(spec.usage + "\n\n" + spec.help + "\n")
            return .success
        }
        do {
            let parsed = try ParsedArguments(rest, spec: spec)
            switch name {
            case RunCommand.spec.name: return try await RunCommand.run(parsed)
            case ChatCommand.spec.name: return try await ChatCommand.run(parsed)
            case PromptCommand.spec.name: return try await PromptCommand.run(parsed)
            case InfoCommand.spec.name: return try await InfoCommand.run(parsed)
            case PullCommand.spec.name: return try await PullCommand.run(parsed)
            case ListCommand.spec.name: return try await ListCommand.run(parsed)
            case ShowCommand.spec.name: return try await ShowCommand.run(parsed)
            case RemoveCommand.spec.name: return try await RemoveCommand.run(parsed)
            case ImportCommand.spec.name: return try await ImportCommand.run(parsed)
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
}
