import Synchronization

/// A model's load, published by the model's thread as it changes, so that other threads read it
/// without waiting for that thread (whose step may take a second or more with long prompts):
/// what `/metrics` reports.
package final class LoadGauges: Sendable {
    /// The numbers at one moment.
    package struct Values: Sendable, Equatable {
        /// Generation requests waiting for a sequence, and embedding requests waiting their turn.
        package var waiting = 0
        /// Sequences generating (or evaluating a prompt).
        package var busy = 0
        /// Embedding requests embedding now (0 or 1) and waiting their turn.
        package var embeddingRunning = 0
        package var embeddingWaiting = 0
        /// Embedding units decoded, and their tokens, since the model was loaded.
        package var embeddingUnits = 0
        package var embeddingTokens = 0
    }

    private let values = Mutex(Values())

    package init() {}

    /// The numbers published last.
    package var current: Values { values.withLock { $0 } }

    /// Publishes a change.
    package func update(_ change: (inout Values) -> Void) {
        values.withLock { change(&$0) }
    }
}
