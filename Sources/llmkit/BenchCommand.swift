import Foundation
import LocalLLMKit

/// `llmkit bench`: prompt-processing and generation throughput with llama-bench's
/// method, through LocalLLMKit's own engine.
enum BenchCommand {
    static let spec = CommandSpec(
        name: "bench",
        usage: "usage: llmkit bench [--model PATH] [-p N[,N…]] [-n N[,N…]] [-r N] [--threads N] [-ngl N] [--json] | bench --conversation TURNS | bench --schema FILE.json | bench --parse [--chat-template FILE] | bench --parallel B[,B…] [-p P] [-n T] [--jsonl] [--step-times] | bench --parallel B[,B…] --gaps | bench --parallel B --mixed | bench --speculative [--lookup | --draft-model M | --mtp] [--draft-max N]",
        help: """
        Measure throughput the way llama-bench does: pp (N random prompt tokens in one
        batch) and tg (N tokens decoded one at a time), each on a fresh context, after a
        warm-up run, repeated -r times; reported as mean ± standard deviation.

          -m, --model PATH        GGUF model (default: $LLMKIT_MODEL, else the bootstrap's model)
          -p, --n-prompt N[,N…]   prompt sizes; 0 skips pp (default: 512)
          -n, --n-gen N[,N…]      generation lengths; 0 skips tg (default: 128)
          -r, --repetitions N     timed runs per test (default: 5)
          -t, --threads N         CPU threads (default: active cores)
          -c, --context N         context length of the model for --conversation and --schema (pp and tg
                                  tests size their own, like llama-bench)
          -ngl, --gpu-layers N    layers on the GPU (default: all when a GPU backend exists, like llama-bench's 99)
              --json              print a JSON array in llama-bench's `-o json` shape
              --conversation N    instead: an N-turn greedy conversation run twice, reusing the KV cache
                                  and re-evaluating the whole history each turn; prompt-evaluation time per
                                  turn, and whether both gave the same answers (exit 1 if not)
              --max-tokens N      answer length per turn with --conversation (default: 48), the most
                                  tokens per run with --schema (default: 200), or the answer length
                                  with --parse (default: 2000)
              --schema FILE.json  instead: generation speed constrained by this JSON Schema next to
                                  unconstrained (temperature 1, same seeds, -r runs each, alternated),
                                  with grammar drafts and one token a step; forced and sampled tokens
              --temperature T     the sampling temperature of --schema's runs (default: 1; 0 = greedy)
              --chat              --schema's prompt as a user message through the chat template
                                  (default: a raw completion, as llama-completion's)
              --parse             instead: the time spent parsing a streamed answer with thinking, as a share
                                  of the generation time, parsing every chunk (the former way) and only
                                  chunks that could change the split; -r alternated runs each (default: 3),
                                  exit 1 if they streamed different events
              --chat-template FILE  the thinking template for --parse (default: Qwen3.5-4B's, installed
                                  by scripts/bootstrap)
              --parallel B[,B…]   instead: llama-batched-bench's test (-npp P -ntg T -npl B…) through the
                                  batch scheduler: B requests of -p random prompt tokens (default: 128)
                                  submitted at once, each generating -n tokens (default: 128) with greedy
                                  sampling; prompt and generation throughput summed over the B sequences
              --kv-unified        with --parallel: one pool of KV cells for all sequences (llama.cpp's -kvu);
              --no-kv-unified     or cells of each sequence's own (-no-kvu); default: cells per sequence
                                  on the CPU, one pool with layers on a GPU
              --jsonl             with --parallel: one JSON line per B, in llama-batched-bench's
                                  `--output-format jsonl` fields
              --step-times        with --parallel (and --mixed): also where each generation step's time
                                  goes (ms per step: building the batch, inside llama_decode, text work,
                                  waiting for the device, sampling, finishing, between steps), and each
                                  step's with prompt tokens; waits for the device explicitly, so the
                                  throughput of such a run may be a little lower
              --gaps              with --parallel: every other request ends with its first token, so idle
                                  sequences sit between generating ones; ms per generation step with their
                                  filler rows (one micro-batch), without them, and as the scheduler chooses
                                  by measuring; -r runs of each (default: 2), ordered ABCCBA
              --mixed             with --parallel B: B clients sending real requests instead (prompts of
                                  different lengths, arriving over time, each with its own sampler);
                                  each sending its next request when one ends, for --duration seconds
                                  (default: 40); throughput over the steady state (--json for an object)
              --speculative       instead: greedy generation speed without and with speculation (--lookup,
                                  the default, --draft-model M or --mtp; --draft-max N) on a fixed set of editing,
                                  extraction, quoting and code-generation tasks, one unmeasured run then -r ABBA pairs each
                                  (default: 2), up to --max-tokens (default: 256); whether the texts match;
                                  --tasks K[,K…] picks kinds (editing, extraction, quoting, generation) or names
        \(SpeculationFlags.help)
          -v, --verbose           show llama.cpp's log on stderr
        \(Flag.help(ModelOptions.placement + ModelOptions.weights))
          -h, --help              show this help

        On a terminal, stderr shows which test runs (as llama-bench --progress does); a pipe gets the
        results alone.
        Here -p, -n and -r keep llama-bench's meanings (not run's --prompt, --max-tokens, --stop);
        --ctx-size, --n-gpu-layers and --n-predict (= --max-tokens) are accepted as in llama.cpp.
        """,
        flags: ModelOptions.withoutFitting + SpeculationFlags.all + ModelOptions.cacheLayout
            + GenerationFlags.everyday.filter { $0.name == "--temperature" },
        valueOptions: ["--n-prompt", "--n-gen", "--repetitions", "--conversation", "--max-tokens", "--schema", "--chat-template",
                       "--parallel", "--duration", "--tasks"],
        flagOptions: ["--json", "--chat", "--parse", "--jsonl", "--mixed", "--gaps", "--step-times", "--speculative"],
        // llama-bench's meanings, which win over the shared table's -p (--prompt), -n (--max-tokens)
        // and -r (--stop).
        aliases: ["-p": "--n-prompt", "-n": "--n-gen", "-r": "--repetitions"]
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        if arguments.has("--speculative") || arguments.has("--lookup") || arguments.has("--mtp") || arguments.value("--draft-model") != nil {
            return try await SpeculativeBenchmark.run(arguments)
        }
        if let sequences = try arguments.integerList("--parallel", in: 1...LocalModel.Configuration.maximumParallelSequences) {
            if arguments.has("--mixed") {
                guard sequences.count == 1 else { throw UsageError(message: "--mixed takes one value of --parallel") }
                return try await MixedWorkload.run(arguments, clients: sequences[0])
            }
            if arguments.has("--gaps") { return try await GapBenchmark.run(arguments, sequences: sequences) }
            return try await ParallelBenchmark.run(arguments, sequences: sequences)
        }
        if let turns = try arguments.integer("--conversation", in: 1...1000) {
            let model = try await ModelOptions.load(arguments)
            return try await ConversationBenchmark.run(model: model, turns: turns,
                                                       maximumTokens: try arguments.integer("--max-tokens", in: 1...100_000) ?? 48,
                                                       json: arguments.has("--json"))
        }
        if let schema = arguments.value("--schema") {
            let model = try await ModelOptions.load(arguments)
            return try await SchemaBenchmark.run(model: model, schemaPath: schema,
                                                 repetitions: try arguments.integer("--repetitions", in: 1...10_000) ?? 5,
                                                 maximumTokens: try arguments.integer("--max-tokens", in: 1...100_000) ?? 200,
                                                 temperature: try arguments.number("--temperature") ?? 1, chat: arguments.has("--chat"),
                                                 json: arguments.has("--json"))
        }
        if arguments.has("--parse") {
            let model = try await ModelOptions.load(arguments)
            return try await ParseBenchmark.run(model: model, templatePath: arguments.value("--chat-template"),
                                                repetitions: try arguments.integer("--repetitions", in: 1...10_000) ?? 3,
                                                maximumTokens: try arguments.integer("--max-tokens", in: 2...100_000) ?? 2000,
                                                json: arguments.has("--json"))
        }
        let prompts = try arguments.integerList("--n-prompt", in: 0...1_000_000) ?? [512]
        let generations = try arguments.integerList("--n-gen", in: 0...1_000_000) ?? [128]
        let repetitions = try arguments.integer("--repetitions", in: 1...10_000) ?? 5
        let tests = prompts.filter { $0 > 0 }.map { LocalModel.ThroughputTest(promptTokens: $0) }
            + generations.filter { $0 > 0 }.map { LocalModel.ThroughputTest(generatedTokens: $0) }
        guard !tests.isEmpty else { throw UsageError(message: "nothing to measure: every -p and -n is 0") }

        let model = try await ModelOptions.load(arguments)
        let json = arguments.has("--json")
        let table = BenchTable(model: model)
        if !json { Console.out(table.header) }
        var reports: [BenchReport] = []
        for (number, test) in tests.enumerated() {
            // llama-bench --progress: which test runs now, on a terminal only (a pipe gets the table alone).
            if Console.errorIsTerminal {
                Console.err("llmkit bench: test \(number + 1)/\(tests.count): \(test.description) (a warm-up run, then \(repetitions) timed)\n")
            }
            let measurement = try await model.measureThroughput(test, repetitions: repetitions)
            if json {
                reports.append(BenchReport(measurement: measurement, model: model))
            } else {
                Console.out(table.row(measurement))
            }
        }
        if json {
            try Console.printJSON(reports)
        } else {
            Console.out("\nbuild: llmkit \(LLMKitVersion.current), llama.cpp \(LLMKitVersion.llamaCpp)\n")
            Console.out(ComputeDevice.all.map { "device: " + DeviceLine.describe($0) + "\n" }.joined())
        }
        return .success
    }
}

/// llama-bench's markdown table.
struct BenchTable {
    let model: LocalModel

    private static let table = BenchmarkTable([
        .init(title: "model", alignment: .left, width: 30), .init(title: "size", width: 10), .init(title: "params", width: 10),
        .init(title: "backend", alignment: .left, width: 10), .init(title: "ngl", width: 3), .init(title: "threads", width: 7),
        .init(title: "test", width: 15), .init(title: "t/s", width: 20),
    ])

    var header: String { Self.table.header }

    func row(_ measurement: LocalModel.ThroughputMeasurement) -> String {
        let size = String(format: "%.2f MiB", Double(model.weightsSize) / 1_048_576)
        let params = String(format: "%.2f M", Double(model.parameterCount) / 1e6)
        let rate = String(format: "%.2f ± %.2f", measurement.averageTokensPerSecond, measurement.standardDeviationTokensPerSecond)
        return Self.table.row([model.modelDescription, size, params, LocalModel.backendNames(of: model).joined(separator: ","),
                               "\(model.gpuLayerCount)", "\(measurement.threads)", measurement.test.description, rate])
    }
}

/// One test in llama-bench's `-o json` shape.
struct BenchReport: Encodable {
    let buildCommit = "llmkit-\(LLMKitVersion.current)"
    let backends: String
    let modelFilename: String
    let modelType: String
    let modelSize: Int64
    let modelNParams: Int64
    let nBatch: Int
    let nUbatch: Int
    let nThreads: Int
    let nGpuLayers: Int
    let typeK: String
    let typeV: String
    let flashAttn: String
    let gpuInfo: String
    let devices: [ComputeDevice]
    let nPrompt: Int
    let nGen: Int
    let nDepth = 0
    let testTime: String
    let avgNs: UInt64
    let stddevNs: UInt64
    let avgTs: Double
    let stddevTs: Double
    let samplesNs: [UInt64]
    let samplesTs: [Double]

    init(measurement: LocalModel.ThroughputMeasurement, model: LocalModel) {
        backends = LocalModel.backendNames(of: model).joined(separator: ",")
        modelFilename = model.url.path
        modelType = model.modelDescription
        modelSize = model.weightsSize
        modelNParams = model.parameterCount
        nBatch = measurement.batchSize
        nUbatch = measurement.microBatchSize
        nThreads = measurement.threads
        nGpuLayers = model.gpuLayerCount
        typeK = model.configuration.context.keyCacheType.rawValue
        typeV = model.configuration.context.valueCacheType.rawValue
        flashAttn = model.configuration.context.flashAttention.rawValue
        devices = ComputeDevice.all
        gpuInfo = devices.filter(\.isGPU).map(\.summary).joined(separator: ", ")
        nPrompt = measurement.test.promptTokens
        nGen = measurement.test.generatedTokens
        testTime = ISO8601DateFormatter().string(from: Date())
        avgNs = UInt64(measurement.averageNanoseconds.rounded())
        stddevNs = UInt64(measurement.standardDeviationNanoseconds.rounded())
        avgTs = measurement.averageTokensPerSecond
        stddevTs = measurement.standardDeviationTokensPerSecond
        samplesNs = measurement.samplesNanoseconds
        samplesTs = measurement.samplesTokensPerSecond
    }
}
