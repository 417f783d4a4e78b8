import Foundation
import LocalLLMKit

/// `llmkit chat`: a conversation, interactive on a terminal, or one message per line from a pipe.
enum ChatCommand {
    static let spec = CommandSpec(
        name: "chat",
        usage: "usage: llmkit chat [-m MODEL] [-n N] [--temperature T] [-sys TEXT] [options]",
        help: """
        Talk with a model. On a terminal it is interactive: lines can be edited (arrow keys,
        Emacs keys, libedit's ~/.editrc), Up and Down recall earlier lines, and the history is
        kept in $LLMKIT_HOME/chat_history (else ${XDG_DATA_HOME:-~/.local/share}/llmkit/chat_history,
        at most \(LineEditor.historyLimit) lines). Ctrl-C stops the answer being written and returns to the
        prompt; Ctrl-C at the prompt, Ctrl-D or /quit leaves (exit code 0).

        With piped input, every line is one user message and stdout carries only the answers,
        each ending with a newline. Ctrl-C then ends the command (exit code 130).

        A line that is exactly \"\"\" starts a multi-line message, on a terminal or from a pipe:
        the lines up to the next \"\"\" line are sent as one message.

        \(ModelOptions.modelHelp)
        \(MediaFlags.help)
        \(GenerationFlags.everydayHelp)
          -h, --help               show this help

        \(GenerationFlags.headedHelp)

        output:
        \(Flag.help(output))

        \(commandHelp)
        """,
        flags: ModelOptions.all + ModelOptions.promptCaching + MediaFlags.all + GenerationFlags.all + SpeculationFlags.all + output
    )

    /// What is printed besides the answers.
    static let output: [Flag] = [
        Flag("--json", help: """
            one line of JSON per turn on stdout instead of the answer:
            {"prompt", "stop_reason", "stop_sequence", "text", "thinking",
            "tool_calls", "turn"}; every line has every key, null when a
            value is absent, and tool_calls is a list of {"arguments",
            "error", "id", "name", "output"} ([] when none)
            """),
        Flag("--stats", help: """
            one JSON line per turn on stderr: {"turn", "prompt_tokens",
            "evaluated_tokens", "generated_tokens", "drafted_tokens", "time_to_first_token_ms", …}
            """),
    ]

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let request = try GenerationFlags.request(arguments)
        let model = try await ModelOptions.load(arguments, cachesPrompts: true)
        let code = try await chat(arguments, request: request, model: model)
        await model.flushPromptCache()
        return code
    }

    /// The chat itself, on `model`.
    private static func chat(_ arguments: ParsedArguments, request: GenerationFlags.Request, model: LocalModel) async throws -> ExitCode {
        let conversation = try await GenerationFlags.conversation(arguments, model: model)
        let input = Console.inputIsTerminal ? ChatInput.terminal(historyFile: DataFolder.chatHistory()) : ChatInput.pipe()
        // On a terminal, Ctrl-C stops one answer (see `answer`); from a pipe it ends the command.
        let printer = ChatPrinter(json: arguments.has("--json"), showThinking: arguments.has("--show-thinking"),
                                  cancelsOnInterrupt: !input.isTerminal)
        if input.isTerminal {
            Console.message("llmkit chat with \(model.url.lastPathComponent) (template: \(conversation.template.source)). "
                            + "/help for commands, \(ChatInput.blockDelimiter) for a multi-line message, Ctrl-D to leave")
        }
        var failed = false
        // `--image` goes with the first message; `/image` with the next one.
        var attachments = try MediaFlags.attachments(arguments)
        while let entry = await input.next() {
            switch entry {
            case .command(let line):
                switch try await command(line, conversation: conversation) {
                case .quit: return failed ? .failure : .success
                case .failed: failed = true
                case .done: break
                case .attach(let attachment): attachments.append(attachment)
                }
            case .message(let message):
                do {
                    let sent = attachments
                    attachments = []
                    guard let response = try await answer(message, attachments: sent, conversation: conversation, request: request,
                                                          printer: printer, interactive: input.isTerminal) else {
                        if InterruptHandler.shared.wasTerminated { return .interrupted }
                        if InterruptHandler.shared.wasInterrupted && !input.isTerminal { return .interrupted }
                        continue
                    }
                    let turn = await conversation.turnCount
                    if printer.json {
                        try Console.printJSONLine(ChatTurnReport(turn: turn, prompt: message, response: response))
                    }
                    if arguments.has("--stats") {
                        Console.err(try statisticsLine(turn: turn, response: response) + "\n")
                    }
                } catch let error where ErrorWording.isLibraryError(error) {
                    Console.message("llmkit chat: \(ErrorWording.describe(error))")
                    failed = true
                }
            }
        }
        return failed ? .failure : .success
    }

    /// One turn: the answer printed as it comes, or nil when Ctrl-C stopped it.
    ///
    /// On a terminal, the turn runs in a task of its own that Ctrl-C cancels; generation stops
    /// within one decode step, the conversation keeps its transcript as it was before the turn,
    /// and the chat goes on. From a pipe, Ctrl-C cancels the stream and the command ends.
    private static func answer(_ message: String, attachments: [MediaAttachment], conversation: Conversation,
                               request: GenerationFlags.Request, printer: ChatPrinter,
                               interactive: Bool) async throws -> ModelResponse<String>? {
        let stream = conversation.streamResponse(to: message, attachments: attachments, format: request.format, options: request.options,
                                                 thinking: request.thinking, toolPolicy: request.toolPolicy)
        guard interactive else {
            let response = try await printer.stream(stream)
            return InterruptHandler.shared.wasInterrupted ? nil : response
        }
        let turn = Task { try await printer.stream(stream) }
        let response: ModelResponse<String>
        do {
            response = try await InterruptHandler.shared.whileRunning(cancel: { turn.cancel() }) {
                try await turn.value
            }
        } catch is CancellationError {
            Console.err("[answer stopped]\n")
            return nil
        }
        guard response.stopReason == .cancelled else { return response }
        if !printer.json && !response.text.isEmpty && !response.text.hasSuffix("\n") { Console.out("\n") }
        Console.err("[answer stopped]\n")
        return nil
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
            "drafted_tokens": s.draftedTokens,
            "accepted_draft_tokens": s.acceptedDraftTokens,
            "encoded_media": s.encodedMedia,
            "media_encoding_ms": s.mediaEncodingDuration.milliseconds,
            "time_to_first_token_ms": s.timeToFirstToken.milliseconds,
            "prompt_eval_ms": s.promptDuration.milliseconds,
            "stop_reason": response.stopReason.rawValue,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
