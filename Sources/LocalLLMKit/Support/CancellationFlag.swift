import Synchronization

/// A thread-safe flag that a generation loop polls, and that llama.cpp's abort
/// callback reads between compute steps.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Whether cancellation was requested.
    var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Requests cancellation.
    func raise() { raised.store(true, ordering: .releasing) }
}
