import Foundation

/// Bounds the time of async work that may block.
enum Deadline {
    /// The instant `timeout` from now. Longer than ten years counts as ten years: a huge
    /// timeout must not overflow the clock (a trap).
    static func after(_ timeout: Duration) -> ContinuousClock.Instant {
        ContinuousClock.now + min(timeout, .seconds(10 * 365 * 86_400))
    }

    /// Runs `body`, or throws `timeout()` once `deadline` has passed, whichever comes first.
    /// The body's task is then cancelled: it must stop waiting promptly (see ``BlockingWork``),
    /// since this returns only once the body's task has.
    static func run<Value: Sendable>(until deadline: ContinuousClock.Instant,
                                     orThrow timeout: @escaping @Sendable () -> any Error,
                                     _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard case let value?? = try await group.next() else { throw timeout() }
            return value
        }
    }
}

/// Runs blocking work (a name lookup, a libcurl transfer) on a thread of its own, so that
/// its async caller stops waiting the moment its task is cancelled, even while the work is
/// stuck in a call that cannot be interrupted (`getaddrinfo` waits for the resolver's own
/// timeouts). Abandoned work runs on to its end on its thread; its result is dropped.
enum BlockingWork {
    /// Runs `work` on a new thread and returns its result.
    /// - Parameter onCancel: called when the caller's task is cancelled, to ask the work to stop early.
    /// - Throws: what `work` throws, or `CancellationError` when the task is cancelled first.
    static func run<Value: Sendable>(onCancel: @escaping @Sendable () -> Void = {},
                                     _ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let result = ResultSlot<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard result.attach(continuation) else { return }
                Thread { result.resume(with: Result { try work() }) }.start()
            }
        } onCancel: {
            onCancel()
            result.resume(with: .failure(CancellationError()))
        }
    }
}

/// A continuation resumed once, by whichever comes first: the work or the cancellation.
private final class ResultSlot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Result<Value, any Error>?
    private var isResumed = false

    /// Attaches the continuation; returns false when it was resumed at once (cancelled before it started).
    func attach(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let early: Result<Value, any Error>? = lock.withLock {
            if let early = self.early {
                isResumed = true
                return early
            }
            self.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Resumes the continuation with `result` unless it was resumed already.
    func resume(with result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = lock.withLock {
            guard !isResumed else { return nil }
            guard let continuation = self.continuation else {
                if early == nil { early = result }
                return nil
            }
            isResumed = true
            self.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}
