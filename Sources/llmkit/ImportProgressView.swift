import Foundation
import LocalLLMKit
import Synchronization

/// Shows an import's progress on stderr while the file is copied or hashed: one redrawn line
/// (see ``TransferProgressLine``), on a terminal only; elsewhere it shows nothing, so that
/// piped output stays as it was.
final class ImportProgressView: Sendable {
    private let isTerminal: Bool
    private let state = Mutex<State>(State())

    private struct State {
        var lastDraw = ContinuousClock.now - .seconds(10)
        var start: ContinuousClock.Instant?
        var drew = false
    }

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.isTerminal = isTerminal
    }

    /// Shows one update (at most ten a second, and always the last one); called from any thread.
    func show(_ progress: ModelLibrary.ImportProgress) {
        guard isTerminal else { return }
        let now = ContinuousClock.now
        // nil: skip this update; .some(rate): draw it, with the average rate once measurable.
        let draw = state.withLock { state -> Double?? in
            let start = state.start ?? now
            state.start = start
            guard now - state.lastDraw >= .milliseconds(100) || progress.bytes >= progress.total else { return nil }
            state.lastDraw = now
            state.drew = true
            let seconds = (now - start).milliseconds / 1000
            return .some(seconds > 0.2 ? Double(progress.bytes) / seconds : nil)
        }
        guard let rate = draw else { return }
        let line = TransferProgressLine.line(label: progress.phase.rawValue, bytes: progress.bytes, total: progress.total,
                                             bytesPerSecond: rate, width: TerminalWidth.columns() - 1)
        Console.err("\r" + line + "\u{1B}[K")
    }

    /// Ends the progress line, if one was drawn.
    func finish() {
        if state.withLock({ $0.drew }) { Console.err("\n") }
    }
}
