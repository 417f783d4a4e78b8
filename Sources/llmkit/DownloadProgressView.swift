import Foundation
import LocalLLMKit

/// Shows a download's progress on stderr: a redrawn bar on a terminal, plain lines
/// (one per tenth, or every five seconds when the size is unknown) otherwise.
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
            Console.err("\r" + bar(progress) + "\u{1B}[K")
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

    private func bar(_ progress: ModelLibrary.Download.Progress) -> String {
        let width = 30
        guard let fraction = progress.fraction else { return describe(progress) }
        let filled = min(width, Int(fraction * Double(width)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + describe(progress)
    }

    private func describe(_ progress: ModelLibrary.Download.Progress) -> String {
        var text = ByteCount.format(progress.bytes)
        if let total = progress.total, let fraction = progress.fraction {
            text += " of \(ByteCount.format(total)) (\(Int(fraction * 100))%)"
        }
        return text + ", \(ByteCount.format(Int64(progress.bytesPerSecond)))/s"
    }
}

/// Byte counts for people.
enum ByteCount {
    /// `253113024` → `241.4 MiB`.
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
