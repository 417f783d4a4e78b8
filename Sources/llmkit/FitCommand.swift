import Foundation
import LocalLLMKit

/// `llmkit fit`: how a model would fit this machine's memory, before loading it.
enum FitCommand {
    static let spec = CommandSpec(
        name: "fit",
        usage: "usage: llmkit fit [MODEL] [--context N] [--gpu-layers N] [--parallel N] [--kv-unified] [-ctk T] [-ctv T] [-fa on|off|auto] [--margin SIZE] [--min-context N] [--memory SIZE] [--json]",
        help: """
        Plan how a model fits the memory free on this machine, without loading its weights
        (llama.cpp's own fitting, as llama-server's --fit): the longest context (at most the
        training length) and the most GPU layers that leave a margin free on every device, and
        what each device would hold: weights, KV cache, compute buffers. Exits 1 when the model
        does not fit even at the smallest context. `run`, `chat` and `serve` take --fit to load
        with the plan.

          MODEL              a GGUF file, or a library id or name (default: $LLMKIT_MODEL, else the bootstrap's model);
                             also -m, --model MODEL
          -c, --context N    context length per sequence (default: the longest that fits)
          -ngl, --gpu-layers N  layers on the GPU (default: the most that fit)
          -np, --parallel N  sequences the context holds (default 1)
          -kvu, --kv-unified one pool of KV cells for all sequences (-no-kvu, --no-kv-unified: cells per sequence)
          --margin SIZE      what each device keeps free (default 1G; sizes take K, M, G, T)
          --min-context N    the shortest context per sequence to fit (default 4096)
          --memory SIZE      plan as if each device had at most SIZE free (for a smaller machine)
          --json             print the plan as one JSON object
          -t, --threads N    CPU threads
        \(Flag.help(ModelOptions.cache))
          -v, --verbose      show llama.cpp's log on stderr
          -h, --help         show this help
        """,
        flags: ModelOptions.cache + ModelOptions.cacheLayout + [ModelOptions.verbose],
        valueOptions: ["--model", "--context", "--gpu-layers", "--parallel", "--margin", "--min-context", "--memory", "--threads"],
        flagOptions: ["--json"],
        aliases: ["-np": "--parallel"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        if arguments.has("--verbose") { LlamaLog.logToStandardError(minimumLevel: .info) }
        let url: URL
        if let name = arguments.positionals.first ?? arguments.value("--model") {
            url = try await ModelOptions.locate(name)
        } else {
            url = try LocalModel.defaultModelURL()
        }
        var configuration = try ModelOptions.configuration(arguments)
        configuration.serving.parallelSequences = try arguments.integer("--parallel", in: 1...256) ?? 1
        configuration.context.batchSize = max(configuration.context.batchSize, configuration.serving.parallelSequences)
        configuration.memoryFit = try memoryFit(arguments)
        let plan = try await LocalModel.memoryPlan(for: url, configuration: configuration)
        if arguments.has("--json") {
            try Console.printJSON(plan)
        } else {
            print(plan, model: url)
        }
        guard plan.fits else {
            let tight = plan.tightestDevice
            throw LocalModel.Error.insufficientMemory(path: url.path, device: tight?.name ?? "Host",
                                                      required: (tight?.used ?? 0) + plan.margin,
                                                      available: tight?.availableMemory ?? 0)
        }
        return .success
    }

    /// The fit of `--margin`, `--min-context` and `--memory` (shared with `--fit` in run, chat and serve).
    static func memoryFit(_ arguments: ParsedArguments) throws -> LocalModel.Configuration.MemoryFit {
        var fit = LocalModel.Configuration.MemoryFit.automatic
        if let margin = arguments.value("--margin") { fit.margin = try size(margin, flag: "--margin") }
        if let memory = arguments.value("--memory") { fit.availableMemory = try size(memory, flag: "--memory") }
        fit.minimumContextLength = try arguments.integer("--min-context", in: 1...(1 << 24)) ?? fit.minimumContextLength
        return fit
    }

    private static func size(_ text: String, flag: String) throws -> Int64 {
        guard let bytes = ByteCount.parse(text) else {
            throw UsageError(message: "\(flag) takes a size such as 512M, 8G or a number of bytes, not \(text)")
        }
        return bytes
    }

    private static func print(_ plan: LocalModel.MemoryPlan, model: URL) {
        var lines: [(String, String)] = [
            ("model", model.path),
            ("context", "\(plan.contextLength) tokens per sequence, \(plan.sequences) "
                + (plan.sequences == 1 ? "sequence" : "sequences") + " (training length \(plan.trainingContextLength))"),
            ("gpu layers", "\(plan.gpuLayers) of \(plan.layerCount)"),
            ("kv cache", "\(ByteCount.format(plan.cacheBytesPerThousandTokens)) per 1K tokens"),
            ("margin", ByteCount.format(plan.margin)),
            ("fits", plan.fits ? "yes" : "no"),
        ]
        lines += plan.devices.map { device in
            ("device", "\(device.name)\(device.summary.isEmpty ? "" : " (\(device.summary))"): weights "
                + "\(ByteCount.format(device.weights)), cache \(ByteCount.format(device.cache)), compute "
                + "\(ByteCount.format(device.compute)); \(ByteCount.format(device.used)) of "
                + "\(ByteCount.format(device.availableMemory)) available")
        }
        lines += plan.reasons.map { ("why", $0) }
        if plan.isReused { lines.append(("plan", "kept from an earlier measurement")) }
        Console.printFields(lines)
    }
}
