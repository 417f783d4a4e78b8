import Foundation
import LocalLLMKit

/// `llmkit bench --schema FILE.json`: generation speed constrained by a JSON Schema next to
/// unconstrained, same prompt, seeds and length, alternated; constrained both with grammar
/// drafts (the text the grammar allows next decoded in one step) and one token a step.
enum SchemaBenchmark {
    struct Row: Encodable {
        let mode: String
        let runs: Int
        let generatedTokens: Int
        /// Generated tokens that came from grammar drafts, and those sampled one a step.
        let forcedTokens: Int
        let sampledTokens: Int
        let tokensPerSecond: Double
        let millisecondsPerToken: Double
    }

    /// The modes, in the order each run takes them (reversed every other run).
    private static let modes = ["unconstrained", "constrained", "constrained-stepwise"]

    static func run(model: LocalModel, schemaPath: String, repetitions: Int, maximumTokens: Int, temperature: Double,
                    chat: Bool, json: Bool) async throws -> ExitCode {
        let schema = try GenerationFlags.readFile(schemaPath, option: "--schema")
        // Raw completion (llama-completion's way), or a user message through the chat template.
        let prompt = chat ? "Write a JSON document describing a product review." : "Here is a JSON document describing a product review:\n"
        var totals: [String: (tokens: Int, seconds: Double, generated: Int, forced: Int)] = [:]
        for run in 0..<repetitions {
            for key in (run % 2 == 0 ? modes : modes.reversed()) {
                var options = CompletionOptions(maximumResponseTokens: maximumTokens,
                                                sampling: .init(temperature: temperature, seed: UInt32(run + 1)))
                options.speculates = key != "constrained-stepwise"
                let format: OutputFormat = key == "unconstrained" ? .text : .jsonSchema(schema)
                let result = chat ? try await Conversation(model: model).respond(to: prompt, format: format, options: options)
                    : try await model.complete(prompt, format: format, options: options)
                // Decode-and-sample steps after the first token, and the time they took.
                let statistics = result.statistics
                let seconds = statistics.generationDuration.milliseconds / 1000
                totals[key, default: (0, 0, 0, 0)].tokens += Int((statistics.generationTokensPerSecond * seconds).rounded())
                totals[key, default: (0, 0, 0, 0)].seconds += seconds
                totals[key, default: (0, 0, 0, 0)].generated += statistics.generatedTokens
                totals[key, default: (0, 0, 0, 0)].forced += statistics.forcedTokens
            }
        }
        let rows = modes.map { key in
            let total = totals[key] ?? (0, 0, 0, 0)
            return Row(mode: key, runs: repetitions, generatedTokens: total.generated, forcedTokens: total.forced,
                       sampledTokens: total.generated - total.forced,
                       tokensPerSecond: Double(total.tokens) / max(total.seconds, 1e-9),
                       millisecondsPerToken: total.seconds * 1000 / Double(max(total.tokens, 1)))
        }
        if json {
            try Console.printJSON(rows)
        } else {
            let table = BenchmarkTable([.init(title: "mode", alignment: .left)]
                + ["runs", "tokens", "forced", "sampled", "t/s (decode + sampling)", "ms/token"].map { BenchmarkTable.Column(title: $0) })
            Console.out(table.header)
            for row in rows {
                Console.out(table.row([row.mode, "\(row.runs)", "\(row.generatedTokens)", "\(row.forcedTokens)", "\(row.sampledTokens)",
                                       BenchmarkTable.number(row.tokensPerSecond, 2), BenchmarkTable.number(row.millisecondsPerToken, 2)]))
            }
            Console.out(String(format: "\nconstrained / unconstrained speed: %.3f (one token a step: %.3f)\n",
                               rows[1].tokensPerSecond / rows[0].tokensPerSecond, rows[2].tokensPerSecond / rows[0].tokensPerSecond))
        }
        return .success
    }
}
