import Foundation
import Synchronization

extension ModelLibrary.Download {
    /// How far a download has got.
    public struct Progress: Sendable, Equatable {
        /// Bytes on disk so far (including those of an earlier, interrupted attempt).
        public var bytes: Int64
        /// The whole size, when known.
        public var total: Int64?
        /// `bytes / total`, when the total is known.
        public var fraction: Double? { total.flatMap { $0 > 0 ? Double(bytes) / Double($0) : nil } }
        /// The current speed.
        public var bytesPerSecond: Double
        /// Whether this download is waiting for another one of the same URL (in this or another
        /// process) to finish; `bytes` is then how far that one has got. Its result is reused
        /// when it succeeds.
        public var isWaiting = false
    }
}

extension ModelLibrary {
    /// A download in progress: its progress as a stream, and the model it yields.
    public struct Download: Sendable {
        /// Progress updates, until the download ends.
        public let progress: AsyncStream<ModelLibrary.Download.Progress>
        let transfer: DownloadTransfer

        /// The registered model, once the file is downloaded and verified (or the model found
        /// already in the library).
        /// - Throws: the error that stopped the download.
        public var value: ModelLibrary.Record {
            get async throws { try await transfer.task.value.record }
        }

        /// The registered model and whether it was already in the library, in which case
        /// nothing was downloaded.
        ///
        /// ```swift
        /// let addition = try await library.download(.gemma3_270m).addition
        /// print(addition.wasAlreadyInLibrary ? "already there" : "downloaded", addition.record.id)
        /// ```
        /// - Throws: the error that stopped the download.
        public var addition: ModelLibrary.Addition {
            get async throws { try await transfer.task.value }
        }

        /// Stops the download (for every request sharing it). The bytes so far stay, so a
        /// later download of the same model resumes.
        public func cancel() {
            transfer.cancel()
        }
    }
}

/// One transfer, shared by every ``ModelLibrary/Download`` of the same model.
final class DownloadTransfer: Sendable {
    private let state = Mutex<State>(State())

    private struct State {
        var subscribers: [AsyncStream<ModelLibrary.Download.Progress>.Continuation] = []
        var last: ModelLibrary.Download.Progress?
        var finished = false
        var task: Task<ModelLibrary.Addition, any Error>?
    }

    /// The task that downloads, verifies and registers the model; set by ``start(_:)``
    /// before the transfer is shared.
    var task: Task<ModelLibrary.Addition, any Error> {
        state.withLock { $0.task }!
    }

    /// A progress stream that starts with the latest update.
    func subscribe() -> AsyncStream<ModelLibrary.Download.Progress> {
        let (stream, continuation) = AsyncStream<ModelLibrary.Download.Progress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let finished = state.withLock { state -> Bool in
            if let last = state.last { continuation.yield(last) }
            if !state.finished { state.subscribers.append(continuation) }
            return state.finished
        }
        if finished { continuation.finish() }
        return stream
    }

    func publish(_ progress: ModelLibrary.Download.Progress) {
        let subscribers = state.withLock { state in
            state.last = progress
            return state.subscribers
        }
        subscribers.forEach { $0.yield(progress) }
    }

    func start(_ task: Task<ModelLibrary.Addition, any Error>) {
        state.withLock { $0.task = task }
    }

    /// Ends every progress stream.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [] }
            return state.subscribers
        }
        subscribers.forEach { $0.finish() }
    }

    func cancel() {
        task.cancel()
    }
}
