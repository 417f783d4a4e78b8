import Foundation
import LocalLLMKit

/// Where the time to the first content of a streamed answer went, for `--log-requests`: before
/// the model's scheduler had the request (parsing, rendering, tokenizing), the wait for a
/// sequence, the prompt's evaluation, and after the first token was sampled (its text, the
/// output parser, writing the event). Counts and times only, never content.
struct FirstContentTiming {
    private let received = ContinuousClock.now
    private var firstContent: Duration?

    /// Notes that the first content (text or thinking) is going out now.
    mutating func contentSent() {
        if firstContent == nil { firstContent = ContinuousClock.now - received }
    }

    /// The log line once the answer is done with `statistics`; nil when no content went out.
    func line(_ statistics: GenerationStatistics) -> String? {
        guard let firstContent, let submitted = statistics.submittedAt else { return nil }
        let before = submitted - received
        let waited = statistics.timeToFirstToken - statistics.promptDuration
        let after = firstContent - before - statistics.timeToFirstToken
        return "first content \(Self.format(firstContent)) ms: before the model \(Self.format(before)) ms, "
            + "waiting for a sequence \(Self.format(waited)) ms, prompt \(Self.format(statistics.promptDuration)) ms "
            + "(\(statistics.evaluatedPromptTokens) of \(statistics.promptTokens) tokens evaluated), "
            + "after the first token \(Self.format(after)) ms\n"
    }

    private static func format(_ duration: Duration) -> String {
        String(format: "%.1f", duration.seconds * 1000)
    }
}
