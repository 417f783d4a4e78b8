import CLlama
import CLlamaEngineBridge
import Synchronization

/// Where llama.cpp's own log lines go. They are silent by default.
///
/// llama.cpp has a single, process-wide logger, so this is global:
/// ```swift
/// LlamaLog.logToStandardError(minimumLevel: .info)   // like llama.cpp's tools
/// LlamaLog.setHandler { level, line in print("llama.cpp \(level): \(line)") }   // anywhere: a file, os.Logger...
/// LlamaLog.setHandler(nil)                           // silent again
/// ```
public enum LlamaLog {
    /// The severity of a llama.cpp log line.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// Orders levels by severity: debug < info < warning < error.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Receives each complete log line (without its trailing newline).
    public typealias Handler = @Sendable (Level, String) -> Void

    private struct State {
        var handler: Handler?
        var pending = ""
        var pendingLevel = Level.info
    }

    private static let state = Mutex(State())

    /// Sends llama.cpp's log lines to `handler`, or silences them when `handler` is nil.
    ///
    /// The lines of llama.cpp's `common` library (chat templates, sampling set-up) have a logger
    /// of their own that can only print to standard error: they stay silent here, and reach
    /// standard error only through ``logToStandardError(minimumLevel:)``.
    public static func setHandler(_ handler: Handler?) {
        LlamaRuntime.ensureInitialized()
        llmkit_common_log_set_verbosity(-1)
        state.withLock { $0.handler = handler }
    }

    /// Writes llama.cpp's log lines at `minimumLevel` or above to standard error, those of its
    /// `common` library included.
    public static func logToStandardError(minimumLevel: Level = .info) {
        setHandler { level, line in
            guard level >= minimumLevel else { return }
            FileHandleOutput.standardError.write(line + "\n")
        }
        // common's own thresholds: 3 info, 2 warnings, 1 errors (debug lines need 5).
        let verbosity: Int32 = switch minimumLevel {
        case .debug: 5
        case .info: 3
        case .warning: 2
        case .error: 1
        }
        llmkit_common_log_set_verbosity(verbosity)
    }

    @TaskLocal package static var errorCollector: ErrorCollector?

    /// Collects llama.cpp's error lines while `body` runs on this task, so that a
    /// failure can say what llama.cpp complained about.
    package static func collectingErrors<T>(_ body: () throws -> T) rethrows -> (T, LlamaErrors) {
        let collector = ErrorCollector()
        let value = try $errorCollector.withValue(collector) { try body() }
        return (value, LlamaErrors(lines: collector.lines))
    }

    /// Receives one raw chunk from ggml's logger (called from C).
    package static func receive(_ level: ggml_log_level, _ text: String) {
        let mapped: Level?
        switch level {
        case GGML_LOG_LEVEL_DEBUG: mapped = .debug
        case GGML_LOG_LEVEL_INFO: mapped = .info
        case GGML_LOG_LEVEL_WARN: mapped = .warning
        case GGML_LOG_LEVEL_ERROR: mapped = .error
        default: mapped = nil    // GGML_LOG_LEVEL_CONT continues the previous line
        }
        let (handler, lines): (Handler?, [(Level, String)]) = state.withLock { state in
            if let mapped { state.pendingLevel = mapped }
            state.pending += text
            var complete: [(Level, String)] = []
            while let newline = state.pending.firstIndex(of: "\n") {
                complete.append((state.pendingLevel, String(state.pending[..<newline])))
                state.pending.removeSubrange(...newline)
            }
            return (state.handler, complete)
        }
        for (level, line) in lines {
            if level == .error { errorCollector?.append(line) }
            handler?(level, line)
        }
    }

    /// Accumulates error lines for `collectingErrors`.
    package final class ErrorCollector: @unchecked Sendable {
        private let lock = Mutex<[String]>([])
        var lines: [String] { lock.withLock { $0 } }
        func append(_ line: String) { lock.withLock { $0.append(line) } }
    }
}

/// The error lines llama.cpp logged during one call.
package struct LlamaErrors {
    package let lines: [String]

    /// The lines without their `function_name: ` prefixes, joined; nil when there were none.
    package var summary: String? {
        guard !lines.isEmpty else { return nil }
        return lines.map { line in
            guard let colon = line.range(of: ": "),
                  line[..<colon.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return line }
            return String(line[colon.upperBound...])
        }.joined(separator: "; ")
    }
}
