import Foundation
import LocalLLMKit

/// `llmkit chat`: a conversation, interactive on a terminal, or one message per line from a pipe.
enum ChatCommand {
    static let spec = CommandSpec(
        name: "chat",
        usage: "usage: llmkit chat [--model PATH] [--system TEXT] [--chat-template FILE] [--max-tokens N] [--temperature T] [--seed S] [--threads N] [--context N] [--stats]",
        help: """
        Talk with a model. On a terminal it is interactive; with piped input, every line is one
        user message and stdout carries only the answers, each ending with a newline.

        \(ModelOptions.help)
        \(GenerationFlags.chatHelp)
        \(GenerationFlags.samplingHelp)
              --stats              one JSON line per turn on stderr: {"turn", "prompt_tokens",
                                   "evaluated_tokens", "generated_tokens", "time_to_first_token_ms", …}
          -h, --help               show this help

        Commands, on a line of their own:
          /save PATH   save the conversation (transcript and KV cache) to PATH
          /load PATH   continue a saved conversation
          /reset       forget every turn (keeps the system message)
          /quit        leave (so does end of input)
        """,
        valueOptions: ModelOptions.valueOptions.union(GenerationFlags.valueOptions),
        flagOptions: ModelOptions.flagOptions.union(GenerationFlags.flagOptions).union(["--stats"]),
        repeatableOptions: ["--stop"],
        aliases: ModelOptions.aliases.merging(GenerationFlags.aliases) { $1 }
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let request = try GenerationFlags.request(arguments)
        let model = try await ModelOptions.load(arguments)
        let conversation = try GenerationFlags.conversation(arguments, model: model)
        let interactive = Console.inputIsTerminal
        let printer = ChatPrinter(json: false, showThinking: arguments.has("--show-thinking"))
        if interactive {
            Console.message("llmkit chat with \(model.url.lastPathComponent) (template: \(conversation.template.source)). "
                            + "/save PATH, /load PATH, /reset, /quit")
        }
        var failed = false
        while true {
            if interactive { Console.err("> ") }
            guard let line = readLine(strippingNewline: true) else { break }
            let message = line.trimmingCharacters(in: .whitespaces)
            if message.isEmpty { continue }
            if message.hasPrefix("/") {
                switch try await command(message, conversation: conversation) {
                case .quit: return failed ? .failure : .success
                case .failed: failed = true
                case .done: break
                }
                continue
            }
            do {
                let response = try await printer.stream(conversation.streamResponse(
                    to: line, format: request.format, options: request.options, thinking: request.thinking,
                    toolPolicy: request.toolPolicy))
                if InterruptHandler.shared.wasInterrupted { return .interrupted }
                if arguments.has("--stats") {
                    Console.err(try statisticsLine(turn: await conversation.turnCount, response: response) + "\n")
                }
            } catch let error where ErrorWording.isLibraryError(error) {
                Console.message("llmkit chat: \(ErrorWording.describe(error))")
                failed = true
            }
        }
        return failed ? .failure : .success
    }

    enum CommandOutcome { case done, failed, quit }

    private static func command(_ line: String, conversation: Conversation) async throws -> CommandOutcome {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        do {
            switch parts[0] {
            case "/quit", "/exit":
                return .quit
            case "/reset":
                await conversation.reset()
                Console.err("conversation reset\n")
            case "/save" where !argument.isEmpty:
                try await conversation.save(to: URL(filePath: argument))
                Console.err("saved to \(argument)\n")
            case "/load" where !argument.isEmpty:
                try await conversation.load(from: URL(filePath: argument))
                Console.err("loaded \(argument) (\(await conversation.turnCount) turns)\n")
            default:
                Console.err("llmkit chat: unknown command '\(line)'; try /save PATH, /load PATH, /reset, /quit\n")
                return .failed
            }
            return .done
        } catch let error where ErrorWording.isLibraryError(error) {
            Console.message("llmkit chat: \(ErrorWording.describe(error))")
            return .failed
        }
    }

    /// The `--stats` line for one turn.
    static func statisticsLine(turn: Int, response: ModelResponse<String>) throws -> String {
        let s = response.statistics
        let object: [String: Any] = [
            "turn": turn,
            "prompt_tokens": s.promptTokens,
            "cached_tokens": s.cachedPromptTokens,
            "evaluated_tokens": s.evaluatedPromptTokens,
            "generated_tokens": s.generatedTokens,
            "thinking_tokens": s.thinkingTokens,
            "time_to_first_token_ms": s.timeToFirstToken.milliseconds,
            "prompt_eval_ms": s.promptDuration.milliseconds,
            "stop_reason": response.stopReason.rawValue,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
