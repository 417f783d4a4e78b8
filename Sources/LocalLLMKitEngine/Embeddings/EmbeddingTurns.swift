/// Embedding requests of one model take turns, first come first served: one embeds while the
/// others wait, so that their units never pile up between two generation steps. Waiting requests
/// count against the model's queue bound (``LocalModel/Configuration/Serving/maximumQueuedRequests``),
/// with generation requests waiting for a sequence.
///
/// Owned by the ``LocalModel`` actor, on the model's executor.
struct EmbeddingTurns {
    private var running = false
    private var waiters: [(id: UInt64, resume: CheckedContinuation<Void, any Swift.Error>)] = []
    private var nextID: UInt64 = 0
    /// Units decoded and their tokens, over the model's life (for `/metrics`).
    private(set) var decodedUnits = 0
    private(set) var decodedTokens = 0

    /// Whether a request embeds or waits.
    var isBusy: Bool { running || !waiters.isEmpty }
    /// Whether a request embeds now.
    var isRunning: Bool { running }
    /// Requests waiting their turn.
    var waitingCount: Int { waiters.count }

    /// Takes the turn at once when nobody has it; nil then. Otherwise a ticket to wait with.
    mutating func take() -> UInt64? {
        if !running && waiters.isEmpty {
            running = true
            return nil
        }
        nextID += 1
        return nextID
    }

    mutating func wait(_ id: UInt64, _ continuation: CheckedContinuation<Void, any Swift.Error>) {
        waiters.append((id, continuation))
    }

    /// Removes a waiter whose task was cancelled; false when it already has the turn.
    mutating func withdraw(_ id: UInt64) -> CheckedContinuation<Void, any Swift.Error>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).resume
    }

    /// Ends the running request's turn and gives it to the next waiter, if any.
    mutating func finish() -> CheckedContinuation<Void, any Swift.Error>? {
        guard !waiters.isEmpty else {
            running = false
            return nil
        }
        return waiters.removeFirst().resume
    }

    mutating func count(unit tokens: Int) {
        decodedUnits += 1
        decodedTokens += tokens
    }
}
