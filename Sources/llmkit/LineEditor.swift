import CEditLine
import Foundation

/// Reads lines on a terminal through libedit: editing with the arrow keys, Emacs-style keys,
/// and a history that is kept in a file between sessions.
///
/// libedit keeps global state, so there is one editor per process; it writes its prompt and
/// echo to stderr, leaving stdout to the answers.
final class LineEditor {
    /// The most history entries kept, in memory and in the file.
    static let historyLimit = 1000

    /// The history file.
    let historyFile: URL
    /// The terminal's settings before libedit changed them, to put back on Ctrl-C.
    private let originalTerminal: termios?
    /// The last line added to the history, to skip repeats.
    private var lastEntry: String?
    /// Whether the one warning about an unwritable history file has been shown.
    private var warnedAboutHistory = false

    /// Prepares libedit and loads the history from `historyFile` (a missing or unreadable file
    /// starts an empty history).
    init(historyFile: URL) {
        self.historyFile = historyFile
        var settings = termios()
        originalTerminal = tcgetattr(STDIN_FILENO, &settings) == 0 ? settings : nil
        llmkit_editline_prepare(Int32(Self.historyLimit))
        _ = read_history(historyFile.path)
    }

    /// Reads one line after `prompt`; nil at the end of input (Ctrl-D on an empty line).
    /// Bytes that are not UTF-8 are replaced, never trusted.
    func readLine(prompt: String) -> String? {
        guard let line = readline(prompt) else { return nil }
        defer { free(line) }
        return String(cString: line)
    }

    /// Adds a non-blank line to the history (unless it repeats the previous one) and saves
    /// the history file. A file that cannot be written is reported once, on stderr.
    func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty, line != lastEntry else { return }
        lastEntry = line
        _ = add_history(line)
        saveHistory()
    }

    /// A closure that puts the terminal back as it was before libedit changed it; safe to
    /// call from the signal handler's thread while `readLine` waits.
    var terminalRestorer: @Sendable () -> Void {
        let settings = originalTerminal
        return {
            guard var settings else { return }
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
    }

    /// Writes the history next to the file, then moves it into place, so that a reader (or
    /// a session that ends half-way) never sees a partial file.
    private func saveHistory() {
        let folder = historyFile.deletingLastPathComponent()
        let temporary = folder.appending(path: ".\(historyFile.lastPathComponent).\(getpid()).tmp")
        var reason = Self.makeFolder(folder)
        if reason == nil {
            let status = write_history(temporary.path)
            if status != 0 {
                reason = String(cString: strerror(status))
            } else if rename(temporary.path, historyFile.path) != 0 {
                reason = String(cString: strerror(errno))
            }
        }
        guard let reason else { return }
        unlink(temporary.path)
        if !warnedAboutHistory {
            warnedAboutHistory = true
            Console.message("llmkit chat: warning: cannot write the history file \(historyFile.path) (\(reason)); "
                            + "this session's lines will not be remembered")
        }
    }

    /// Creates `folder` and the folders above it (private to the user), or says why it cannot.
    private static func makeFolder(_ folder: URL) -> String? {
        var path = ""
        for component in folder.standardizedFileURL.path.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                return "\(path): \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }
}
