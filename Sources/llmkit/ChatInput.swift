import Foundation

/// What `llmkit chat` reads: messages and commands, from libedit on a terminal or line by line
/// from a pipe. A line that is exactly `"""` starts a block; the lines up to the next `"""`
/// line are joined with newlines into one message.
final class ChatInput {
    /// One thing the user entered.
    enum Entry: Equatable {
        /// A message for the model.
        case message(String)
        /// A line starting with `/`, outside a block.
        case command(String)
    }

    /// The line that starts and ends a multi-line block.
    static let blockDelimiter = "\"\"\""

    /// Where lines come from.
    private enum Source {
        case terminal(LineEditor)
        case pipe
    }

    private let source: Source
    /// Whether the input has ended (a block cut short by the end is still sent first).
    private var ended = false

    private init(source: Source) {
        self.source = source
    }

    /// Input from a terminal: libedit with the history in `historyFile`.
    static func terminal(historyFile: URL) -> ChatInput {
        ChatInput(source: .terminal(LineEditor(historyFile: historyFile)))
    }

    /// Input from a pipe or a file: one line at a time, no editing.
    static func pipe() -> ChatInput {
        ChatInput(source: .pipe)
    }

    /// Whether the input is a terminal.
    var isTerminal: Bool {
        if case .terminal = source { return true }
        return false
    }

    /// The next message or command; nil at the end of input. Blank lines are skipped. When the
    /// input ends inside a block, the block so far is the last message (with a warning).
    ///
    /// On a terminal, each line is added to the history, and a block as one entry: Up recalls
    /// the whole block, and Enter sends it again as one message.
    func next() async -> Entry? {
        while !ended, let line = await readLine(continuing: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed == Self.blockDelimiter {
                let block = await readBlock()
                if block.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
                remember(block)
                return .message(block)
            }
            remember(line)
            // A recalled block holds newlines: it is a message even when it starts with "/".
            return trimmed.hasPrefix("/") && !line.contains("\n") ? .command(trimmed) : .message(line)
        }
        return nil
    }

    /// Adds an entry to the terminal's history.
    private func remember(_ entry: String) {
        if case .terminal(let editor) = source { editor.remember(entry) }
    }

    /// The lines of a block, after its opening `"""`, joined with newlines.
    private func readBlock() async -> String {
        var lines: [String] = []
        while true {
            guard let line = await readLine(continuing: true) else {
                Console.err("llmkit chat: warning: the input ended inside a \(Self.blockDelimiter) block; sending it as it is\n")
                break
            }
            if line.trimmingCharacters(in: .whitespaces) == Self.blockDelimiter { break }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// One line, or nil (from then on) at the end of input.
    private func readLine(continuing: Bool) async -> String? {
        let line = await readSourceLine(continuing: continuing)
        if line == nil { ended = true }
        return line
    }

    /// One line from the source. On a terminal: after a prompt (`... ` inside a block); Ctrl-C
    /// while waiting leaves the chat with exit code 0, the terminal put back as it was (libedit
    /// cannot be left from another thread, so the process ends there).
    private func readSourceLine(continuing: Bool) async -> String? {
        switch source {
        case .pipe:
            return Swift.readLine(strippingNewline: true)
        case .terminal(let editor):
            let restore = editor.terminalRestorer
            let line = await InterruptHandler.shared.whileRunning(cancel: {
                restore()
                Console.err("\n")
                _exit(InterruptHandler.shared.wasTerminated ? ExitCode.terminated.rawValue : ExitCode.success.rawValue)
            }) {
                editor.readLine(prompt: continuing ? "... " : "> ")
            }
            if line == nil { Console.err("\n") }      // Ctrl-D: the shell's prompt on a line of its own
            return line
        }
    }
}
