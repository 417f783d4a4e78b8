import LocalLLMKit

/// The `n` choices of one request, merged into one stream of (choice index, event). The first
/// choice starts alone; the others start once it has its first event, when its prompt is in the
/// model's cache, so that they take the prompt from there instead of evaluating it again (see
/// ``GenerationPlan/reusesCache``). Ending the merged stream cancels every choice.
enum ChoiceStreams {
    static func merge<Choice: AsyncSequence & Sendable>(count: Int, _ start: @escaping @Sendable (Int) -> Choice)
        -> AsyncThrowingStream<(Int, Choice.Element), any Error> where Choice.Element: Sendable {
        let (stream, continuation) = AsyncThrowingStream<(Int, Choice.Element), any Error>.makeStream()
        let producer = Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    let (firstEvent, signal) = AsyncStream<Void>.makeStream()
                    group.addTask {
                        defer { signal.finish() }
                        for try await event in start(0) {
                            signal.finish()
                            continuation.yield((0, event))
                        }
                    }
                    if count > 1 {
                        for await _ in firstEvent {}
                        for index in 1..<count {
                            group.addTask {
                                for try await event in start(index) { continuation.yield((index, event)) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in producer.cancel() }
        return stream
    }

    /// The response of each choice, in order, read from `stream` to its end by `done` (which
    /// picks the event that ends a choice); fewer than `count` when some ended without one.
    static func responses<Event>(_ stream: AsyncThrowingStream<(Int, Event), any Error>, count: Int,
                                 done: (Event) -> ModelResponse<String>?) async throws -> [ModelResponse<String>] {
        var responses: [Int: ModelResponse<String>] = [:]
        for try await (index, event) in stream {
            if let response = done(event) { responses[index] = response }
        }
        return (0..<count).compactMap { responses[$0] }
    }

    /// `options` for choice `index`: a seed given is moved along by the index, so that the
    /// choices differ and the request still reproduces.
    static func options(_ options: CompletionOptions, choice index: Int) -> CompletionOptions {
        guard index > 0, let seed = options.sampling.seed else { return options }
        var moved = options
        let next = seed &+ UInt32(truncatingIfNeeded: index)
        moved.sampling.seed = next == UInt32.max ? 0 : next
        return moved
    }
}
