import Dispatch
import Foundation
import Synchronization

/// Turns Ctrl-C (SIGINT) into a clean cancellation: while a generation runs, the
/// first Ctrl-C cancels it and the command exits with 130; at any other time the
/// process exits with 130 at once. `llmkit chat` on a terminal installs its own actions
/// instead: Ctrl-C stops one answer, and at the prompt it leaves the chat.
// `source` is set once in `init` and never touched again; everything else is synchronized.
final class InterruptHandler: @unchecked Sendable {
    static let shared = InterruptHandler()

    private let action = Mutex<(@Sendable () -> Void)?>(nil)
    private let interrupted = Atomic<Bool>(false)
    private let source: DispatchSourceSignal

    private init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { InterruptHandler.shared.interrupt() }
        source.resume()
    }

    private func interrupt() {
        interrupted.store(true, ordering: .releasing)
        if let cancel = action.withLock({ $0 }) {
            cancel()
        } else {
            exit(ExitCode.interrupted.rawValue)
        }
    }

    /// Whether Ctrl-C was pressed.
    var wasInterrupted: Bool { interrupted.load(ordering: .acquiring) }

    /// Runs `body` with `cancel` as the Ctrl-C action.
    func whileRunning<T>(cancel: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T {
        action.withLock { $0 = cancel }
        defer { action.withLock { $0 = nil } }
        return try await body()
    }
}
