import CLlamaEngineBridge
import Foundation

/// Threads of their own for work that blocks or computes for a while outside a model: rendering a
/// chat template (which may wait for a template worker), checking a JSON Schema and building its
/// grammar, reading a request's JSON.
///
/// Swift's cooperative pool has as many threads as cores, so one such call there stalls every
/// other task of the process (a server's health checks included); on a model's executor it stalls
/// that model's generation. Here a job gets a thread at once while fewer than
/// ``maximumThreads`` are busy, and waits in a FIFO queue otherwise. Idle threads exit after a few
/// seconds. Its threads run at a lower CPU priority (nice 10) than the models' threads.
package final class BlockingWorkPool: @unchecked Sendable {
    /// The pool every part of the package shares.
    package static let shared = BlockingWorkPool(name: "llmkit.blocking", maximumThreads: 32)

    /// How much lower than the process the pool's threads run (Linux `nice`), as the template
    /// workers do.
    package static let niceness = Int32(llmkit_background_niceness)

    /// The most threads the pool runs at once.
    package let maximumThreads: Int
    private let name: String
    private let condition = NSCondition()
    private var queue: [Job] = []           // guarded by `condition`; served from `next`
    private var next = 0                    // guarded by `condition`
    private var threads = 0                 // guarded by `condition`
    private var idle = 0                    // guarded by `condition`
    private var busy = 0                    // guarded by `condition`
    private var lastRelease = ContinuousClock.now    // guarded by `condition`

    /// A queued job: it runs, or it is dropped when its task was cancelled before it started.
    private final class Job: @unchecked Sendable {
        let body: () -> Void
        let drop: () -> Void
        /// Taken by a thread, or dropped: either way no longer the other's. Guarded by the pool's `condition`.
        var claimed = false
        init(body: @escaping () -> Void, drop: @escaping () -> Void) {
            self.body = body
            self.drop = drop
        }
    }

    /// A pool of at most `maximumThreads` threads named `name`.
    package init(name: String, maximumThreads: Int) {
        self.name = name
        self.maximumThreads = max(1, maximumThreads)
    }

    /// Runs `body` on a thread of the pool and returns its result. A task cancelled while its
    /// job still waits for a thread gets `CancellationError` without running it; a job that has
    /// started runs to its end.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let box = JobBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let job = Job(body: { continuation.resume(with: Result { try body() }) },
                              drop: { continuation.resume(throwing: CancellationError()) })
                box.job = job
                submit(job)
            }
        } onCancel: {
            cancel(box)
        }
    }

    /// The job of one `run`, for its cancellation handler (set before the handler can see it:
    /// a cancellation that comes first finds no job, and the job runs).
    private final class JobBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Job?
        var job: Job? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    private func submit(_ job: Job) {
        condition.lock()
        queue.append(job)
        // A thread for every job that no idle thread will take.
        let start = queue.count - next > idle && threads < maximumThreads
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.stackSize = 16 << 20        // template rendering and grammar conversion recurse
            thread.start()
        }
    }

    /// Gives memory that the jobs freed back to the system once the pool has nothing to do (at
    /// most once a second): glibc keeps freed memory in each thread's arena, so a burst of large
    /// requests would otherwise leave the process that much larger for good.
    private func releaseFreedMemory() {
        guard ContinuousClock.now - lastRelease > .seconds(1) else { return }
        lastRelease = .now
        llmkit_release_free_memory()
    }

    private func cancel(_ box: JobBox) {
        guard let job = box.job else { return }
        condition.lock()
        let waiting = queue[next...].contains { $0 === job } && !job.claimed
        if waiting { job.claimed = true }
        condition.unlock()
        if waiting { job.drop() }
    }

    /// A thread's loop: jobs in order; exits after `idleTimeout` without one.
    private func work() {
        let idleTimeout: TimeInterval = 5
        // Below the models' threads: a flood of heavy requests (hostile schemas, huge bodies)
        // then slows itself, not generation (at nice 0 the pool's threads took the cores from
        // it). On Linux a thread's nice value is its own, and `who` 0 names the calling thread.
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        #endif
        condition.lock()
        while true {
            while next == queue.count {
                idle += 1
                let woke = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
                idle -= 1
                if !woke, next == queue.count {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let job = queue[next]
            next += 1
            if next == queue.count {
                queue.removeAll(keepingCapacity: true)
                next = 0
            }
            guard !job.claimed else { continue }    // dropped by its cancellation
            job.claimed = true                       // started: a later cancellation drops nothing
            busy += 1
            condition.unlock()
            job.body()
            condition.lock()
            busy -= 1
            if busy == 0 && next == queue.count { releaseFreedMemory() }
        }
    }
}
