import Foundation
import LocalLLMKit

/// Shows a download's progress on stderr: a redrawn line on a terminal (a bar, the rate and
/// the time left, see ``TransferProgressLine``), plain lines (one per tenth, or every five
/// seconds when the size is unknown) otherwise.
struct DownloadProgressView {
    private let isTerminal: Bool
    private var lastDraw = ContinuousClock.now - .seconds(10)
    private var lastStep = -1
    private var drewBar = false
    private var saidWaiting = false

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.isTerminal = isTerminal
    }

    /// Shows one update (throttled).
    mutating func show(_ progress: ModelLibrary.Download.Progress) {
        let now = ContinuousClock.now
        if progress.isWaiting {
            guard !saidWaiting else { return }
            saidWaiting = true
            Console.err("another download of this file is running (another llmkit pull?); waiting for it to finish\n")
            return
        }
        if isTerminal {
            guard now - lastDraw >= .milliseconds(100) || progress.bytes == progress.total else { return }
            lastDraw = now
            drewBar = true
            let line = TransferProgressLine.line(bytes: progress.bytes, total: progress.total,
                                                 bytesPerSecond: progress.bytesPerSecond, width: TerminalWidth.columns() - 1)
            Console.err("\r" + line + "\u{1B}[K")
            return
        }
        if let fraction = progress.fraction {
            let step = Int(fraction * 10)
            guard step > lastStep else { return }
            lastStep = step
        } else {
            guard now - lastDraw >= .seconds(5) else { return }
        }
        lastDraw = now
        Console.err("downloaded " + describe(progress) + "\n")
    }

    /// Ends the bar's line.
    func finish() {
        if drewBar { Console.err("\n") }
    }

    private func describe(_ progress: ModelLibrary.Download.Progress) -> String {
        var text = ByteCount.format(progress.bytes)
        if let total = progress.total, let fraction = progress.fraction {
            text += " of \(ByteCount.format(total)) (\(Int(fraction * 100))%)"
        }
        return text + ", \(ByteCount.format(Int64(progress.bytesPerSecond)))/s"
    }
}
