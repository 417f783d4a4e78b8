import Foundation
import LocalLLMKit

/// `llmkit bench --speculative`: generation speed with and without speculation on the fixed
/// tasks of ``SpeculativeTask``, greedy, through the model's chat template; runs alternate
/// plain, speculative, speculative, plain (-r such pairs per task), after one unmeasured plain run.
enum SpeculativeBenchmark {
    /// One task's measurements.
    struct Row: Encodable {
        let task: String
        let kind: String
        let message: String
        let generatedTokens: Int
        /// Generated tokens per second, as llama-server's `predicted_per_second`: the tokens over
        /// the time from the first to the last (means over the runs).
        let plainTokensPerSecond: Double
        let speculativeTokensPerSecond: Double
        let speedup: Double
        /// Each run's tokens per second, in the order they ran (plain, speculative, speculative, plain, …).
        let plainRuns: [Double]
        let speculativeRuns: [Double]
        let draftedTokens: Int
        let acceptedDraftTokens: Int
        let acceptanceRate: Double
        /// Whether every speculative run gave the plain runs' text.
        let identical: Bool
    }

    /// A kind's totals: tokens over time, summed over its tasks.
    struct Summary: Encodable {
        let kind: String
        let plainTokensPerSecond: Double
        let speculativeTokensPerSecond: Double
        let speedup: Double
        let acceptanceRate: Double
    }

    struct Report: Encodable {
        let model: String
        let speculation: String
        let maximumTokens: Int
        let pairs: Int
        let rows: [Row]
        let summaries: [Summary]
    }

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        var speculation = try await SpeculationFlags.speculation(arguments)
        if !speculation.isEnabled { speculation = .promptLookup }
        let pairs = try arguments.integer("--repetitions", in: 1...100) ?? 2
        let maximumTokens = try arguments.integer("--max-tokens", in: 1...100_000) ?? 256
        let json = arguments.has("--json")
        let tasks = try selectedTasks(arguments.value("--tasks"))
        // One model, each plain run with `speculates: false`: two models in one process would
        // run two OpenMP thread teams on the same cores, and libgomp then stops spinning at
        // ggml's barriers, which slows both (docs/PERFORMANCE.md has the measurement).
        var configuration = try ModelOptions.configuration(arguments)
        configuration.serving.speculation = speculation
        let model = try await ModelOptions.load(arguments, configuration: configuration)
        let options = CompletionOptions.greedy(maximumResponseTokens: maximumTokens)
        var plainOptions = options
        plainOptions.speculates = false
        let taskTable = BenchmarkTable([.init(title: "task", alignment: .left), .init(title: "kind", alignment: .left)]
            + ["tokens", "plain t/s", "speculative t/s", "speedup", "accepted"].map { BenchmarkTable.Column(title: $0) }
            + [.init(title: "same text", alignment: .center)])
        if !json {
            Console.out("speculation: \(speculation), \(pairs) ABBA pairs per task, up to \(maximumTokens) tokens\n\n")
            Console.out(taskTable.header)
        }
        var rows: [Row] = []
        for task in tasks {
            var plainRuns: [ModelResponse<String>] = [], speculativeRuns: [ModelResponse<String>] = []
            // An unmeasured run first, so that every measured run finds the task's prompt in the
            // prefix cache and evaluates only its last token: a prompt evaluated whole gives that
            // token's logits from a batch of many rows, which can differ in the last bits and
            // turn a near tie the other way (as llama-server's `cache_prompt`).
            _ = try await answer(task, model: model, options: plainOptions)
            for _ in 0..<pairs {
                plainRuns.append(try await answer(task, model: model, options: plainOptions))
                speculativeRuns.append(try await answer(task, model: model, options: options))
                speculativeRuns.append(try await answer(task, model: model, options: options))
                plainRuns.append(try await answer(task, model: model, options: plainOptions))
            }
            let row = makeRow(task, plain: plainRuns, speculative: speculativeRuns)
            rows.append(row)
            if !json {
                Console.out(taskTable.row([row.task, row.kind, "\(row.generatedTokens)", BenchmarkTable.number(row.plainTokensPerSecond, 1),
                                           BenchmarkTable.number(row.speculativeTokensPerSecond, 1), BenchmarkTable.number(row.speedup, 2) + "×",
                                           "\(row.acceptedDraftTokens) of \(row.draftedTokens) (\(BenchmarkTable.number(100 * row.acceptanceRate, 0))%)",
                                           row.identical ? "yes" : "NO"]))
            }
        }
        let summaries = summarize(rows)
        if json {
            try Console.printJSON(Report(model: model.url.path, speculation: speculation.description, maximumTokens: maximumTokens,
                                         pairs: pairs, rows: rows, summaries: summaries))
        } else {
            let kindTable = BenchmarkTable([.init(title: "kind", alignment: .left)]
                + ["plain t/s", "speculative t/s", "speedup", "acceptance"].map { BenchmarkTable.Column(title: $0) })
            Console.out("\n" + kindTable.header)
            for summary in summaries {
                Console.out(kindTable.row([summary.kind, BenchmarkTable.number(summary.plainTokensPerSecond, 1),
                                           BenchmarkTable.number(summary.speculativeTokensPerSecond, 1),
                                           BenchmarkTable.number(summary.speedup, 2) + "×", BenchmarkTable.number(100 * summary.acceptanceRate, 0) + "%"]))
            }
        }
        return .success
    }

    /// The tasks `--tasks` names, by kind or name (all without it).
    /// - Throws: ``UsageError`` for a name that is neither.
    private static func selectedTasks(_ list: String?) throws -> [SpeculativeTask] {
        guard let list else { return SpeculativeTask.all }
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for name in names where !SpeculativeTask.all.contains(where: { $0.kind == name || $0.name == name }) {
            throw UsageError(message: "--tasks: no task or kind of task is named '\(name)' (kinds: editing, extraction, quoting, generation)")
        }
        return SpeculativeTask.all.filter { names.contains($0.kind) || names.contains($0.name) }
    }

    private static func answer(_ task: SpeculativeTask, model: LocalModel,
                               options: CompletionOptions) async throws -> ModelResponse<String> {
        try await Conversation(model: model).respond(to: task.message, options: options)
    }

    /// Tokens per second as llama-server counts them: generated tokens over the generation time.
    private static func rate(_ runs: [ModelResponse<String>]) -> Double {
        let seconds = runs.map(\.statistics.generationDuration.seconds).reduce(0, +)
        return seconds > 0 ? Double(runs.map(\.statistics.generatedTokens).reduce(0, +)) / seconds : 0
    }

    private static func makeRow(_ task: SpeculativeTask, plain: [ModelResponse<String>],
                                speculative: [ModelResponse<String>]) -> Row {
        let plainRate = rate(plain), speculativeRate = rate(speculative)
        let drafted = speculative.map(\.statistics.draftedTokens).reduce(0, +)
        let accepted = speculative.map(\.statistics.acceptedDraftTokens).reduce(0, +)
        return Row(task: task.name, kind: task.kind, message: task.message, generatedTokens: plain[0].statistics.generatedTokens,
                   plainTokensPerSecond: plainRate, speculativeTokensPerSecond: speculativeRate,
                   speedup: plainRate > 0 ? speculativeRate / plainRate : 0,
                   plainRuns: plain.map { rate([$0]) }, speculativeRuns: speculative.map { rate([$0]) }, draftedTokens: drafted, acceptedDraftTokens: accepted,
                   acceptanceRate: drafted > 0 ? Double(accepted) / Double(drafted) : 0,
                   identical: speculative.allSatisfy { $0.text == plain[0].text } && plain.allSatisfy { $0.text == plain[0].text })
    }

    /// Per kind, then editing, extraction and quoting together ("lookup tasks"), then all.
    private static func summarize(_ rows: [Row]) -> [Summary] {
        func summary(_ kind: String, _ rows: [Row]) -> Summary {
            let tokens = rows.map { Double($0.generatedTokens) }
            let plainSeconds = zip(tokens, rows).map { $0 / max($1.plainTokensPerSecond, 1e-9) }.reduce(0, +)
            let speculativeSeconds = zip(tokens, rows).map { $0 / max($1.speculativeTokensPerSecond, 1e-9) }.reduce(0, +)
            let total = tokens.reduce(0, +)
            let drafted = rows.map(\.draftedTokens).reduce(0, +), accepted = rows.map(\.acceptedDraftTokens).reduce(0, +)
            return Summary(kind: kind, plainTokensPerSecond: total / plainSeconds, speculativeTokensPerSecond: total / speculativeSeconds,
                           speedup: plainSeconds / speculativeSeconds,
                           acceptanceRate: drafted > 0 ? Double(accepted) / Double(drafted) : 0)
        }
        let kinds = ["editing", "extraction", "quoting", "generation"].filter { kind in rows.contains { $0.kind == kind } }
        let repeating = rows.filter { $0.kind != "generation" }
        return kinds.map { kind in summary(kind, rows.filter { $0.kind == kind }) }
            + (repeating.isEmpty || repeating.count == rows.count ? [] : [summary("editing+extraction+quoting", repeating)])
            + [summary("all", rows)]
    }
}
