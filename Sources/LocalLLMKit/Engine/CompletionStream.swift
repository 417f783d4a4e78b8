/// A stream of generated text, chunk by chunk, with the final result at the end.
///
/// ```swift
/// let stream = model.streamCompletion("Once upon a time", options: .init(maximumTokens: 64))
/// for try await chunk in stream { print(chunk, terminator: "") }
/// let result = try await stream.result     // stop reason and statistics
/// ```
///
/// Generation runs whether or not anyone reads the stream. Breaking out of the
/// loop (once the iterator is gone), or cancelling the task that reads it (or
/// that awaits ``result``), stops generation within one decode step; ``result`` then reports
/// ``StopReason/cancelled`` with the text generated so far. Each chunk holds
/// whole characters only.
public struct CompletionStream: AsyncSequence, Sendable {
    /// A chunk of generated text.
    public typealias Element = String

    let chunks: AsyncThrowingStream<String, any Error>
    let outcome: Promise<CompletionResult>
    let cancellation: @Sendable () -> Void

    /// Creates the iterator over the text chunks. A stream can be iterated once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: chunks.makeAsyncIterator(), watch: IterationWatch(onAbandon: cancellation))
    }

    /// Iterates the text chunks. Dropping it before the end (a `break` out of
    /// `for try await`) cancels generation.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<String, any Error>.Iterator
        let watch: IterationWatch

        /// The next chunk, or nil once generation has ended.
        public mutating func next() async throws -> String? {
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

    /// The final result, once generation has ended.
    ///
    /// Awaiting it without reading the stream is fine: the text is also in the result.
    /// - Throws: the error that ended generation, if it failed.
    public var result: CompletionResult {
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
}

/// Cancels generation when an iterator is dropped before the stream ended.
final class IterationWatch: @unchecked Sendable {
    private let onAbandon: @Sendable () -> Void
    private var finished = false        // touched only by the iterator's owner

    init(onAbandon: @escaping @Sendable () -> Void) {
        self.onAbandon = onAbandon
    }

    func finish() { finished = true }

    deinit {
        if !finished { onAbandon() }
    }
}
