/// A stream of generation events (text chunks, or a conversation's ``Conversation/Event``s),
/// with the final output at the end.
///
/// ```swift
/// let stream = model.streamCompletion("Once upon a time", options: .init(maximumResponseTokens: 64))
/// for try await chunk in stream { print(chunk, terminator: "") }
/// let result = try await stream.result     // stop reason and statistics
/// ```
///
/// Generation runs whether or not anyone reads the stream. Breaking out of the
/// loop (once the iterator is gone), or cancelling the task that reads it (or
/// that awaits ``result``), stops generation within one decode step; ``result`` then reports
/// ``StopReason/cancelled`` with the text generated so far. Each chunk holds
/// whole characters only.
public struct GenerationStream<Element: Sendable, Output: Sendable>: AsyncSequence, Sendable {
    package let chunks: AsyncThrowingStream<Element, any Error>
    package let outcome: Task<Output, any Error>
    package let cancellation: @Sendable () -> Void

    package init(chunks: AsyncThrowingStream<Element, any Error>, outcome: Task<Output, any Error>,
                 cancellation: @escaping @Sendable () -> Void) {
        self.chunks = chunks
        self.outcome = outcome
        self.cancellation = cancellation
    }

    /// Creates the iterator over the text chunks. A stream can be iterated once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: chunks.makeAsyncIterator(), watch: IterationWatch(onAbandon: cancellation))
    }

    /// Iterates the text chunks. Dropping it before the end (a `break` out of
    /// `for try await`) cancels generation.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator
        let watch: IterationWatch

        /// The next element, or nil once generation has ended.
        public mutating func next() async throws -> Element? {
            do {
                let chunk = try await base.next()
                if chunk == nil { watch.finish() }
                return chunk
            } catch {
                watch.finish()
                throw error
            }
        }
    }

    /// The final output, once generation has ended.
    ///
    /// Awaiting it without reading the stream is fine: the text is also in the output.
    /// - Throws: the error that ended generation, if it failed.
    public var result: Output {
        get async throws {
            try await withTaskCancellationHandler {
                try await outcome.value
            } onCancel: { [cancellation] in
                cancellation()
            }
        }
    }

    /// Stops generation; ``result`` then reports ``StopReason/cancelled``.
    public func cancel() {
        cancellation()
    }

    /// A stream that `work` produces in a task of its own: it emits elements through `emit` and
    /// returns the output. Cancelling the stream (a dropped iterator, a cancelled consumer,
    /// ``cancel()``) cancels that task. For a ``ModelBackend`` of your own.
    ///
    /// ```swift
    /// let stream = Conversation.ResponseStream { emit in
    ///     emit(.text("Hello"))
    ///     return ModelResponse(content: "Hello", text: "Hello")
    /// }
    /// ```
    public init(_ work: @escaping @Sendable (_ emit: @escaping @Sendable (Element) -> Void) async throws -> Output) {
        self = Self.start(flag: CancellationFlag(), work)
    }

    /// Starts `work` in a task; it produces elements through `emit` and returns the output.
    /// Cancelling (a dropped iterator, a cancelled consumer, ``cancel()``) raises `flag`.
    package static func start(flag: CancellationFlag,
                      _ work: @escaping @Sendable (_ emit: @escaping @Sendable (Element) -> Void) async throws -> Output) -> Self {
        let (chunks, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let task = Task {
            do {
                let output = try await work { continuation.yield($0) }
                continuation.finish()
                return output
            } catch {
                continuation.finish(throwing: error)
                throw error
            }
        }
        let cancel: @Sendable () -> Void = {
            flag.raise()
            task.cancel()
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { cancel() }
        }
        return Self(chunks: chunks, outcome: task, cancellation: cancel)
    }
}

/// Cancels generation when an iterator is dropped before the stream ended.
package final class IterationWatch: @unchecked Sendable {
    private let onAbandon: @Sendable () -> Void
    private var finished = false        // touched only by the iterator's owner

    package init(onAbandon: @escaping @Sendable () -> Void) {
        self.onAbandon = onAbandon
    }

    package func finish() { finished = true }

    deinit {
        if !finished { onAbandon() }
    }
}
