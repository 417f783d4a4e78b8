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
    private let terminated = Atomic<Bool>(false)
    private let source: DispatchSourceSignal
    private let terminationSource: DispatchSourceSignal

    private init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { InterruptHandler.shared.interrupt() }
        source.resume()
        terminationSource = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        terminationSource.setEventHandler { InterruptHandler.shared.terminate() }
        terminationSource.resume()
    }

    private func interrupt() {
        interrupted.store(true, ordering: .releasing)
        if let cancel = action.withLock({ $0 }) {
            cancel()
        } else {
            exit(ExitCode.interrupted.rawValue)
        }
    }

    /// SIGTERM: the running work is cancelled as by Ctrl-C (a download keeps what it fetched,
    /// nothing is left half-written), and the process then exits with 143 (128 + SIGTERM).
    private func terminate() {
        terminated.store(true, ordering: .releasing)
        interrupted.store(true, ordering: .releasing)
        if let cancel = action.withLock({ $0 }) {
            cancel()
        } else {
            exit(ExitCode.terminated.rawValue)
        }
    }

    /// Whether Ctrl-C was pressed or SIGTERM received.
    var wasInterrupted: Bool { interrupted.load(ordering: .acquiring) }

    /// Whether SIGTERM was received: the command must stop, and exits with 143.
    var wasTerminated: Bool { terminated.load(ordering: .acquiring) }

    /// Records that the command finished the work SIGTERM asked it to stop, cleanly (`llmkit serve`
    /// drains its requests): the process then exits with the command's own status, not 143.
    func acknowledgeTermination() {
        terminated.store(false, ordering: .releasing)
    }

    /// Runs `body` with `cancel` as the Ctrl-C action.
    func whileRunning<T>(cancel: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T {
        action.withLock { $0 = cancel }
        defer { action.withLock { $0 = nil } }
        return try await body()
    }
}
