import Foundation

/// The CLI's two output streams: stdout carries only the answer (or the JSON),
/// stderr carries progress, statistics and errors.
enum Console {
    /// Writes to standard output, unbuffered.
    static func out(_ text: String) {
        write(text, to: .standardOutput)
    }

    /// Writes to standard error, unbuffered.
    static func err(_ text: String) {
        write(text, to: .standardError)
    }

    /// Prints `value` as one line of compact JSON (keys as ``JSONKeyPolicy`` writes them), for
    /// streams of objects.
    static func printJSONLine(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = JSONKeyPolicy.strategy
        out(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
    }

    /// Prints a value as one JSON document on stdout (keys as ``JSONKeyPolicy`` writes them),
    /// followed by a newline.
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = JSONKeyPolicy.strategy
        out(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
    }

    /// Prints `key  value` lines with the values aligned; control characters in keys and
    /// values are escaped (they may come from a GGUF file), so each field stays on one line.
    static func printFields(_ fields: [(String, String)]) {
        let escaped = fields.map { (TerminalText.escaped($0.0), TerminalText.escaped($0.1)) }
        let width = escaped.map(\.0.count).max() ?? 0
        for (key, value) in escaped {
            out(key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value + "\n")
        }
    }

    /// Writes a model's answer to stdout: exact when stdout is a file or a pipe; on a terminal,
    /// control characters other than line breaks and tabs are escaped, so that generated text
    /// cannot send escape sequences to the terminal.
    static func answer(_ text: String) {
        out(outputIsTerminal ? TerminalText.escaped(text, keepingLineBreaks: true) : text)
    }

    /// Writes a one-line message about something untrusted to stderr, escaped.
    static func message(_ text: String) {
        err(TerminalText.escaped(text) + "\n")
    }

    /// Whether standard input is an interactive terminal.
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard output is a terminal.
    static let outputIsTerminal = isatty(STDOUT_FILENO) == 1

    /// Whether standard error is a terminal (progress lines are shown only there).
    static let errorIsTerminal = isatty(STDERR_FILENO) == 1

    private static func write(_ text: String, to handle: FileHandle) {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            // The reader went away (a closed pipe): nothing more can be shown.
            exit(ExitCode.failure.rawValue)
        }
    }
}

/// The CLI's exit codes.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case interrupted = 130
    /// Stopped by SIGTERM (128 + 15), after cancelling cleanly.
    case terminated = 143
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
