import LocalLLMKit

/// `llmkit bench --parallel B[,B…] --gaps`: generation steps with idle sequences between
/// generating ones, with their filler rows, without, and as the scheduler chooses
/// (`LocalModel.measureGapSteps`), as ratios.
enum GapBenchmark {
    static func run(_ arguments: ParsedArguments, sequences: [Int]) async throws -> ExitCode {
        let prompt = try arguments.integerList("--n-prompt", in: 1...1_000_000)?.first ?? 128
        let generated = try arguments.integerList("--n-gen", in: 1...1_000_000)?.first ?? 128
        let runs = try arguments.integer("--repetitions", in: 1...1000) ?? 2
        let configuration = try ParallelBenchmark.configuration(arguments, sequences: sequences, promptTokens: prompt,
                                                                generatedTokens: generated)
        let model = try await ModelOptions.load(arguments, configuration: configuration)
        // One short request first, as llama-batched-bench warms up with one decode.
        _ = try await model.measureParallelThroughput(promptTokens: min(16, prompt), generatedTokens: 1, sequences: 1)
        let layout = configuration.cacheLayoutInEffect == .unified ? "one pool of KV cells" : "KV cells per sequence"
        Console.out("\nllmkit bench --parallel --gaps: of B requests of \(prompt) prompt tokens, the odd-numbered end with their "
                    + "first token and the others generate \(generated) more; ms per generation step with the idle sequences' "
                    + "filler rows, without, and as the scheduler chooses by measuring (learning from the first such run on), "
                    + "\(runs) runs each, ordered ABCCBA…, \(layout)\n\n")
        let table = BenchmarkTable(["B", "idle", "steps", "filled", "decoding", "total", "unfilled: decoding", "total",
                                    "unfilled ÷ filled", "measured: filled", "total", "measured ÷ best"]
            .map { BenchmarkTable.Column(title: $0) })
        Console.out(table.header)
        for count in sequences {
            let measured = try await model.measureGapSteps(promptTokens: prompt, generatedTokens: generated, sequences: count,
                                                           runs: runs)
            let (filled, unfilled, chosen) = (measured.filled, measured.unfilled, measured.measured)
            func total(_ times: StepTimes) -> Double {
                times.phases.map { times.millisecondsPerStep($0.duration) }.reduce(0, +)
            }
            Console.out(table.row([
                "\(count)", "\(count / 2)", "\(filled.steps)", "\(filled.stepsWithFillers)",
                BenchmarkTable.number(filled.millisecondsPerStep(filled.decoding), 3), BenchmarkTable.number(total(filled), 3),
                BenchmarkTable.number(unfilled.millisecondsPerStep(unfilled.decoding), 3), BenchmarkTable.number(total(unfilled), 3),
                "**" + BenchmarkTable.number(total(unfilled) / total(filled), 3) + "**",
                "\(chosen.stepsWithFillers)", BenchmarkTable.number(total(chosen), 3),
                "**" + BenchmarkTable.number(total(chosen) / min(total(filled), total(unfilled)), 3) + "**",
            ]))
        }
        return .success
    }
}
