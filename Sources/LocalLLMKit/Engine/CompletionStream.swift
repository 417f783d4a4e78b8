/// A stream of generated text, chunk by chunk, with the final result at the end.
///
/// ```swift
/// let stream = model.streamCompletion("Once upon a time", options: .init(maximumTokens: 64))
/// for try await chunk in stream { print(chunk, terminator: "") }
/// let result = try await stream.result     // stop reason and statistics
/// ```
///
/// Generation runs whether or not anyone reads the stream. Breaking out of the
/// loop, or cancelling the task that reads it (or that awaits ``result``), stops
/// generation within one decode step; ``result`` then reports
/// ``StopReason/cancelled`` with the text generated so far. Each chunk holds
/// whole characters only.
public struct CompletionStream: AsyncSequence, Sendable {
    /// A chunk of generated text.
    public typealias Element = String

    let chunks: AsyncThrowingStream<String, any Error>
    let outcome: Promise<CompletionResult>
    let cancellation: @Sendable () -> Void

    /// Creates the iterator over the text chunks. A stream can be iterated once.
    public func makeAsyncIterator() -> AsyncThrowingStream<String, any Error>.Iterator {
        chunks.makeAsyncIterator()
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
