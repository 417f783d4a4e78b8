import Foundation
import LocalLLMKit

/// `llmkit bench --parallel B[,B…]`: llama-batched-bench's measurement (`-npp P -ntg T -npl B…`)
/// through the batch scheduler that serves real requests, in its table or its JSONL lines.
enum ParallelBenchmark {
    /// One line of llama-batched-bench's `--output-format jsonl`, with its field names.
    struct Line: Encodable {
        let nKvMax: Int
        let nBatch: Int
        let nUbatch: Int
        let flashAttn: Int
        let isPpShared: Int
        let nGpuLayers: Int
        let nThreads: Int
        let nThreadsBatch: Int
        let pp: Int
        let tg: Int
        let pl: Int
        let nKv: Int
        let tPp: Double
        let speedPp: Double
        let tTg: Double
        let speedTg: Double
        let t: Double
        let speed: Double
    }

    /// The model configuration the test needs: as many sequences as the largest B, each with
    /// room for its prompt and answer (unless `--context` says otherwise).
    static func configuration(_ arguments: ParsedArguments, sequences: [Int], promptTokens: Int, generatedTokens: Int) throws
        -> LocalModel.Configuration {
        var configuration = try ModelOptions.configuration(arguments)
        configuration.serving.parallelSequences = sequences.max() ?? 1
        configuration.context.batchSize = max(configuration.context.batchSize, configuration.serving.parallelSequences)
        if configuration.context.length == nil { configuration.context.length = promptTokens + generatedTokens + 1 }
        return configuration
    }

    static func run(_ arguments: ParsedArguments, sequences: [Int]) async throws -> ExitCode {
        let prompt = try arguments.integerList("--n-prompt", in: 1...1_000_000)?.first ?? 128
        let generated = try arguments.integerList("--n-gen", in: 1...1_000_000)?.first ?? 128
        let configuration = try configuration(arguments, sequences: sequences, promptTokens: prompt, generatedTokens: generated)
        let model = try await ModelOptions.load(arguments, configuration: configuration)
        let jsonl = arguments.has("--jsonl")
        let measuringSteps = arguments.has("--step-times")
        var stepTimes: [(sequences: Int, times: StepTimes, prompt: StepTimes)] = []
        // llama-batched-bench warms up with one decode; one short request does the same here.
        _ = try await model.measureParallelThroughput(promptTokens: min(16, prompt), generatedTokens: 1, sequences: 1)
        if !jsonl {
            Console.out("\nllmkit bench --parallel: n_kv_max = \(model.contextLength * configuration.serving.parallelSequences), "
                        + "n_batch = \(configuration.context.batchSize), n_ubatch = \(configuration.context.microBatchSize), "
                        + "n_gpu_layers = \(model.gpuLayerCount), n_threads = \(configuration.effectiveThreads), "
                        + "kv_unified = \(configuration.cacheLayoutInEffect == .unified ? 1 : 0)\n\n")
            Console.out(table.header)
        }
        for count in sequences {
            let result = try await model.measureParallelThroughput(promptTokens: prompt, generatedTokens: generated, sequences: count,
                                                                   measuringSteps: measuringSteps)
            if let times = result.stepTimes, let prompt = result.promptStepTimes { stepTimes.append((count, times, prompt)) }
            if jsonl {
                try Console.printJSONLine(line(result, model: model, configuration: configuration))
            } else {
                Console.out(table.row([
                    "\(result.promptTokens)", "\(result.generatedTokens)", "\(result.sequences)", "\(result.cacheCells)",
                    format(result.promptSeconds, 3), format(result.promptTokensPerSecond, 2),
                    format(result.generationSeconds, 3), format(result.generationTokensPerSecond, 2),
                    format(result.promptSeconds + result.generationSeconds, 3), format(result.tokensPerSecond, 2),
                ]))
            }
        }
        if !stepTimes.isEmpty { printStepTimes(stepTimes, jsonl: jsonl) }
        return .success
    }

    /// The `--step-times` tables: milliseconds per generation step and per step with prompt
    /// tokens, by phase (on stderr with --jsonl).
    static func printStepTimes(_ measured: [(sequences: Int, times: StepTimes, prompt: StepTimes)], jsonl: Bool) {
        let names = StepTimes().phases.map(\.name)
        func values(_ times: StepTimes) -> [String] {
            let values = times.phases.map { times.millisecondsPerStep($0.duration) }
            return (values + [values.reduce(0, +)]).map { format($0, 3) }
        }
        // "filled": steps that filler rows of idle sequences kept in one micro-batch.
        let table = BenchmarkTable((["B", "steps", "filled"] + names + ["total"]).map { BenchmarkTable.Column(title: $0) })
        var text = "\nms per generation step\n\n" + table.header
        for (sequences, times, _) in measured {
            text += table.row(["\(sequences)", "\(times.steps)", "\(times.stepsWithFillers)"] + values(times))
        }
        // A prompt step's "between" counts from the end of any step before it.
        let promptTable = BenchmarkTable((["B", "steps", "with generation"] + names + ["total"]).map { BenchmarkTable.Column(title: $0) })
        text += "\nms per step with prompt tokens\n\n" + promptTable.header
        for (sequences, _, prompt) in measured {
            text += promptTable.row(["\(sequences)", "\(prompt.steps)", "\(prompt.stepsWithGeneration)"] + values(prompt))
        }
        if jsonl { Console.err(text) } else { Console.out(text) }
    }

    static func line(_ result: LocalModel.ParallelThroughput, model: LocalModel, configuration: LocalModel.Configuration) -> Line {
        Line(nKvMax: model.contextLength * configuration.serving.parallelSequences, nBatch: configuration.context.batchSize,
             nUbatch: min(configuration.context.microBatchSize, configuration.context.batchSize), flashAttn: -1, isPpShared: 0,
             nGpuLayers: model.gpuLayerCount, nThreads: configuration.effectiveThreads,
             nThreadsBatch: configuration.effectiveThreads, pp: result.promptTokens, tg: result.generatedTokens,
             pl: result.sequences, nKv: result.cacheCells, tPp: result.promptSeconds, speedPp: result.promptTokensPerSecond,
             tTg: result.generationSeconds, speedTg: result.generationTokensPerSecond,
             t: result.promptSeconds + result.generationSeconds, speed: result.tokensPerSecond)
    }

    /// llama-batched-bench's table: the first four columns 6, 6, 4 and 6 wide, the rest 8.
    private static let table = BenchmarkTable(
        zip(["PP", "TG", "B", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s", "T s", "S t/s"], [6, 6, 4, 6, 8, 8, 8, 8, 8, 8])
            .map { BenchmarkTable.Column(title: $0, width: $1) },
        batchedBenchStyle: true)

    private static func format(_ value: Double, _ digits: Int) -> String {
        BenchmarkTable.number(value, digits)
    }
}
