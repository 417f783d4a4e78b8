import Foundation

/// A serial executor that runs its jobs on one dedicated thread.
///
/// The actors that own llama.cpp handles run on it, so that the long, blocking
/// calls into llama.cpp (loading, `llama_decode`) never occupy a thread of
/// Swift's cooperative pool, and so that everything touching one model happens
/// on one thread, in order.
package final class EngineExecutor: SerialExecutor, @unchecked Sendable {
    private enum Work {
        case job(UnownedJob)
        case block(() -> Void)
    }

    private let condition = NSCondition()
    private var queue: [Work] = []          // guarded by `condition`
    private var isShutDown = false          // guarded by `condition`

    /// Starts the executor's thread.
    package init(name: String) {
        let thread = Thread { [self] in self.runLoop() }
        thread.name = name
        thread.stackSize = 16 << 20        // llama.cpp and its template engine recurse deeply
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs `body` on the executor's thread and returns its result.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            push(.block { continuation.resume(with: Result { try body() }) })
        }
    }

    /// Queues `body` to run on the executor's thread, after the work already queued.
    package func schedule(_ body: @escaping () -> Void) {
        push(.block(body))
    }

    /// Lets the thread finish the work already queued, then exit.
    package func shutDown() {
        condition.lock()
        isShutDown = true
        condition.signal()
        condition.unlock()
    }

    private func push(_ work: Work) {
        condition.lock()
        queue.append(work)
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while queue.isEmpty && !isShutDown { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let work = queue.removeFirst()
            condition.unlock()
            switch work {
            case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
            case .block(let body): body()
            }
        }
    }
}
