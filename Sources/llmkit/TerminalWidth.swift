import Foundation

/// The width of the terminal that stderr shows on.
enum TerminalWidth {
    /// The columns of the terminal on `descriptor`, or `fallback` when it is not one (or says 0).
    static func columns(of descriptor: Int32 = STDERR_FILENO, fallback: Int = 80) -> Int {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return fallback }
        return Int(size.ws_col)
    }
}
