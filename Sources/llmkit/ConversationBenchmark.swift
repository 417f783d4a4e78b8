import Foundation
import LocalLLMKit

/// `llmkit bench --conversation N`: the same N-turn greedy conversation twice, turn by
/// turn, once reusing the KV cache and once evaluating the whole history every turn.
enum ConversationBenchmark {
    /// The user side of the scripted conversation.
    static let messages = [
        "Let us plan a small vegetable garden behind a city apartment building.",
        "The plot is four meters by three, and it gets sun only in the morning.",
        "Which vegetables would grow well with so little afternoon light?",
        "How should the beds be laid out so that everything is easy to reach?",
        "What kind of soil and compost should we bring in for the first season?",
        "How often should we water in summer, and at what time of the day?",
        "Some neighbours want to help. How could we share the work fairly?",
        "Slugs ate half of the lettuce last year. What can we do about them?",
        "When should we sow, and when can we expect the first harvest?",
        "Please summarize the whole plan in a few short points.",
    ]

    struct Turn: Encodable {
        let turn: Int
        let promptTokens: Int
        let evaluatedWithReuse: Int
        let promptMsWithReuse: Double
        let promptMsWithoutReuse: Double
        let speedup: Double
        let sameOutput: Bool
    }

    static func run(model: LocalModel, turns: Int, maximumTokens: Int, json: Bool) async throws -> ExitCode {
        let reusing = try Conversation(model: model, instructions: "You are a practical gardening assistant.")
        let refeeding = try Conversation(model: model, instructions: "You are a practical gardening assistant.",
                                         configuration: .init(reusesPromptCache: false))
        let options = CompletionOptions.greedy(maximumResponseTokens: maximumTokens)
        var rows: [Turn] = []
        let table = BenchmarkTable(["turn", "prompt tokens", "evaluated (reuse)", "prompt ms (reuse)", "prompt ms (re-feed)", "speedup"]
            .map { BenchmarkTable.Column(title: $0) } + [.init(title: "same output", alignment: .center)])
        if !json {
            Console.out(table.header)
        }
        for index in 0..<turns {
            let message = messages[index % messages.count]
            let a = try await reusing.respond(to: message, options: options)
            let b = try await refeeding.respond(to: message, options: options)
            let row = Turn(turn: index + 1, promptTokens: a.statistics.promptTokens,
                           evaluatedWithReuse: a.statistics.evaluatedPromptTokens,
                           promptMsWithReuse: a.statistics.promptDuration.milliseconds,
                           promptMsWithoutReuse: b.statistics.promptDuration.milliseconds,
                           speedup: b.statistics.promptDuration.milliseconds / max(a.statistics.promptDuration.milliseconds, 0.001),
                           sameOutput: a.text == b.text)
            rows.append(row)
            if !json {
                Console.out(table.row(["\(row.turn)", "\(row.promptTokens)", "\(row.evaluatedWithReuse)",
                                       BenchmarkTable.number(row.promptMsWithReuse, 1), BenchmarkTable.number(row.promptMsWithoutReuse, 1),
                                       BenchmarkTable.number(row.speedup, 1) + "×", row.sameOutput ? "yes" : "NO"]))
            }
        }
        if json {
            try Console.printJSON(rows)
        }
        return rows.allSatisfy(\.sameOutput) ? .success : .failure
    }
}
