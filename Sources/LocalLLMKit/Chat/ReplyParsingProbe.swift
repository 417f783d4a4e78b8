import Foundation

/// Lets a benchmark choose how the conversation rounds started in its task parse their output,
/// and read the time they spent parsing (`llmkit bench --parse`): bind a probe to
/// `ReplyParsingProbe.$current` around `respond(to:)`, then compare `probe.measurement.duration`
/// with the response's `statistics.generationDuration`.
package final class ReplyParsingProbe: @unchecked Sendable {
    /// The probe of the current task, if any.
    @TaskLocal package static var current: ReplyParsingProbe?

    /// What a probe measured, summed over rounds.
    package struct Measurement: Sendable, Equatable {
        /// Time spent turning chunks into events (parsing, deltas), the final parses included.
        package var duration: Duration = .zero
        /// Chunks of output.
        package var chunks = 0
        /// Parses through the template's parser.
        package var parses = 0
    }

    /// How rounds parse.
    package let parsing: ReplyStream.Parsing
    private let lock = NSLock()
    private var measured = Measurement()

    /// A probe that makes rounds parse as `parsing` says.
    package init(parsing: ReplyStream.Parsing) {
        self.parsing = parsing
    }

    /// What was measured so far.
    package var measurement: Measurement {
        lock.withLock { measured }
    }

    /// Adds one round's figures.
    func record(duration: Duration, chunks: Int, parses: Int) {
        lock.withLock {
            measured.duration += duration
            measured.chunks += chunks
            measured.parses += parses
        }
    }
}

extension ReplyParsingProbe {
    /// Runs `body`, adding the time it takes to `total` when there is a probe.
    static func measure<T>(_ probe: ReplyParsingProbe?, adding total: inout Duration, _ body: () throws -> T) rethrows -> T {
        guard probe != nil else { return try body() }
        let clock = ContinuousClock()
        let start = clock.now
        defer { total += clock.now - start }
        return try body()
    }
}
