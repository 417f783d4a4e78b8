import Synchronization

/// A thread-safe flag that a generation loop polls, and that llama.cpp's abort
/// callback reads between compute steps.
package final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// A flag that is not raised.
    package init() {}

    /// Whether cancellation was requested.
    package var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Requests cancellation.
    package func raise() { raised.store(true, ordering: .releasing) }
}
