import Foundation

/// The one-line progress display of a transfer (a download, an import's copy or hash), as a
/// pure function of the numbers: a bar, bytes done of the total with a percentage, the rate
/// and the time left, fitted to the terminal's width.
///
/// For 12 MiB of 240 MiB at 4 MiB/s in 80 columns it gives
/// `[#.............................] 12.0 MiB of 240.0 MiB (5%), 4.0 MiB/s, ETA 0:57`.
package enum TransferProgressLine {
    /// The widest bar drawn, in cells between the brackets.
    package static let barWidth = 30
    /// The narrowest bar worth drawing; below it the line goes without one.
    package static let minimumBarWidth = 10

    /// The time left at `bytesPerSecond` (the average rate so far), e.g. `0:42`, or nil when it
    /// cannot be told: no rate yet, nothing left, or over 99 hours.
    package static func eta(remainingBytes: Int64, bytesPerSecond: Double) -> String? {
        guard remainingBytes > 0, bytesPerSecond.isFinite, bytesPerSecond > 0 else { return nil }
        let seconds = (Double(remainingBytes) / bytesPerSecond).rounded(.up)
        guard seconds < 100 * 3600 else { return nil }
        return duration(seconds: Int(seconds))
    }

    /// `m:ss` under an hour, `h:mm:ss` from one hour on; negative counts as 0.
    package static func duration(seconds: Int) -> String {
        let total = max(seconds, 0)
        let hours = total / 3600, minutes = total / 60 % 60, rest = total % 60
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    /// The whole percentage of `bytes` in `total`, rounded down and kept within 0...100; 100 for an
    /// empty total.
    package static func percent(_ bytes: Int64, of total: Int64) -> Int {
        guard total > 0 else { return 100 }
        return Int(min(max(Double(bytes) / Double(total), 0), 1) * 100)
    }

    /// The line, at most `width` characters (and never less than 1). What does not fit goes in
    /// this order: the bar narrows then goes, then the rate, then the time left; what is left
    /// is cut.
    /// - Parameters:
    ///   - label: a word in front, such as `copying` (none by default).
    ///   - bytes: bytes done.
    ///   - total: the whole size, when known.
    ///   - bytesPerSecond: the average rate, when measured; with a total it gives the time left.
    ///   - width: the terminal's columns.
    package static func line(label: String? = nil, bytes: Int64, total: Int64?, bytesPerSecond: Double?, width: Int) -> String {
        let width = max(width, 1)
        var counts = ByteCount.format(max(bytes, 0))
        if let total { counts += " of \(ByteCount.format(total)) (\(percent(bytes, of: total))%)" }
        if let label { counts = label + " " + counts }
        let rate = bytesPerSecond.flatMap { $0.isFinite && $0 >= 0 ? ByteCount.format(Int64($0)) + "/s" : nil }
        let timeLeft = total.flatMap { total in bytesPerSecond.flatMap { eta(remainingBytes: total - bytes, bytesPerSecond: $0) } }
            .map { "ETA " + $0 }
        let candidates = [[counts, rate, timeLeft], [counts, timeLeft], [counts]].map { $0.compactMap { $0 }.joined(separator: ", ") }
        let full = candidates[0]
        if let total {
            let room = width - full.count - 3                   // "[", "] "
            let cells = min(barWidth, room)
            if cells >= minimumBarWidth { return bar(percent(bytes, of: total), cells: cells) + " " + full }
        }
        for text in candidates where text.count <= width { return text }
        return String(candidates[candidates.count - 1].prefix(width))
    }

    /// `[####......]` with `cells` cells between the brackets.
    private static func bar(_ percent: Int, cells: Int) -> String {
        let filled = min(cells, percent * cells / 100)
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled) + "]"
    }
}
