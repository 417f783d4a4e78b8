import Foundation
import LocalLLMKit

/// `llmkit bench --schema FILE.json`: generation speed constrained by a JSON Schema
/// next to unconstrained, same prompt, seeds and length, alternated.
enum SchemaBenchmark {
    struct Row: Encodable {
        let mode: String
        let runs: Int
        let generatedTokens: Int
        let tokensPerSecond: Double
        let millisecondsPerToken: Double
    }

    static func run(model: LocalModel, schemaPath: String, repetitions: Int, maximumTokens: Int, json: Bool) async throws -> ExitCode {
        let schema = try GenerationFlags.readFile(schemaPath, option: "--schema")
        let prompt = "Here is a JSON document describing a product review:\n"
        var totals: [String: (tokens: Int, seconds: Double)] = [:]
        for run in 0..<repetitions {
            for constrained in (run % 2 == 0 ? [false, true] : [true, false]) {
                let options = CompletionOptions(maximumResponseTokens: maximumTokens,
                                                sampling: .init(temperature: 1.0, seed: UInt32(run + 1)))
                let result = try await model.complete(prompt, format: constrained ? .jsonSchema(schema) : .text, options: options)
                let key = constrained ? "constrained" : "unconstrained"
                // Decode-and-sample steps after the first token, and the time they took.
                let seconds = result.statistics.generationDuration.milliseconds / 1000
                totals[key, default: (0, 0)].tokens += Int((result.statistics.generationTokensPerSecond * seconds).rounded())
                totals[key, default: (0, 0)].seconds += seconds
            }
        }
        let rows = ["unconstrained", "constrained"].map { key in
            let total = totals[key] ?? (0, 0)
            return Row(mode: key, runs: repetitions, generatedTokens: total.tokens,
                       tokensPerSecond: Double(total.tokens) / max(total.seconds, 1e-9),
                       millisecondsPerToken: total.seconds * 1000 / Double(max(total.tokens, 1)))
        }
        if json {
            try Console.printJSON(rows)
        } else {
            let table = BenchmarkTable([.init(title: "mode", alignment: .left)]
                + ["runs", "tokens", "t/s (decode + sampling)", "ms/token"].map { BenchmarkTable.Column(title: $0) })
            Console.out(table.header)
            for row in rows {
                Console.out(table.row([row.mode, "\(row.runs)", "\(row.generatedTokens)",
                                       BenchmarkTable.number(row.tokensPerSecond, 2), BenchmarkTable.number(row.millisecondsPerToken, 2)]))
            }
            Console.out(String(format: "\nconstrained / unconstrained speed: %.3f\n", rows[1].tokensPerSecond / rows[0].tokensPerSecond))
        }
        return .success
    }
}
