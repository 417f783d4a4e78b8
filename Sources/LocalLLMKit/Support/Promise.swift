import Synchronization

/// A value that is set once and awaited by any number of tasks.
final class Promise<Value: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<Value, any Error>])
        case settled(Result<Value, any Error>)
    }

    private let state = Mutex<State>(.pending([]))

    /// Settles the promise; later calls are ignored.
    func settle(_ result: Result<Value, any Error>) {
        let waiters: [CheckedContinuation<Value, any Error>] = state.withLock { state in
            guard case .pending(let waiters) = state else { return [] }
            state = .settled(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The settled value, waiting for it if needed.
    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let settled: Result<Value, any Error>? = state.withLock { state in
                    switch state {
                    case .pending(let waiters):
                        state = .pending(waiters + [continuation])
                        return nil
                    case .settled(let result):
                        return result
                    }
                }
                if let settled { continuation.resume(with: settled) }
            }
        }
    }
}
