import Foundation
import LocalLLMKit

/// The model flags shared by every subcommand that loads a model.
enum ModelOptions {
    /// `--model`, shown first.
    static let model = Flag("--model", "-m", value: "MODEL", help: """
        a GGUF path (with / or ending in .gguf), else, in this order: a library
        id (`llmkit list`) or default, a name given with --name, a catalog id, a
        name from a file or a cache; default: $LLMKIT_MODEL, else the bootstrap's
        model
        """)

    /// Where offloaded layers go besides this machine's GPUs.
    static let placement: [Flag] = [
        Flag("--rpc", value: "HOST:PORT,…", help: """
            put offloaded layers on these llama.cpp RPC servers too (`llmkit rpc-server`;
            no authentication or encryption: trusted networks only)
            """),
        Flag("--tensor-split", "-ts", value: "A,B,…", help: """
            each device's share of the offloaded layers: the RPC servers' devices,
            then the GPUs (default: by free memory)
            """),
    ]

    /// `--fit`: llama.cpp's memory fitting.
    static let fit = Flag("--fit", help: """
        fit the context length and GPU layers not given to the memory free on this
        machine (llama.cpp's fitting; `llmkit fit` shows the plan)
        """)

    /// `--verbose`: llama.cpp's log.
    static let verbose = Flag("--verbose", "-v", help: "show llama.cpp's log on stderr")

    /// The threads, the context and the GPU layers.
    static let basics: [Flag] = [
        Flag("--threads", "-t", value: "N", option: "threads", help: "CPU threads (default: active cores)"),
        Flag("--context", "-c", "--ctx-size", value: "N", option: "contextLength",
             help: "context length in tokens (default: training length, at most 4096)"),
        Flag("--gpu-layers", "-ngl", "--n-gpu-layers", value: "N", option: "gpuLayers",
             help: "layers to offload to the GPU (default: all when a GPU backend exists; 0: CPU only)"),
    ]

    /// How the model is loaded: threads, context, devices, fitting, the log.
    static var loading: [Flag] { basics + placement + [fit, verbose] }

    /// The KV cache's number format and attention (`serve` and `fit` list them too).
    static let cache: [Flag] = [
        Flag("--cache-type-k", "-ctk", value: "T", help: """
            the KV cache's number format for keys: f16 (default), q8_0 (about half
            the memory), q4_0, q4_1, iq4_nl, q5_0, q5_1, bf16, f32
            """),
        Flag("--cache-type-v", "-ctv", value: "T",
             help: "the same for values, where a quantized type needs flash attention"),
        Flag("--flash-attn", "-fa", value: "on|off|auto", help: "fused attention (default auto: where the devices support it)"),
    ]

    /// `--control-vector-layer-range`, which takes two values (see ``ParsedArguments/pairOptions``).
    static let controlVectorLayerRange = Flag("--control-vector-layer-range", value: "START END",
                                              help: "the layers the control vectors steer (default all)")

    /// What is applied over the weights: LoRA adapters and control vectors.
    static let adapters: [Flag] = [
        Flag("--lora", value: "FILE[:SCALE],…", repeatable: true, help: """
            LoRA adapters applied over the weights (llama.cpp's --lora), at SCALE
            (default 1; 0 leaves the model as is); repeatable
            """),
        Flag("--lora-scaled", value: "FILE:SCALE,…", repeatable: true, help: "the same with every scale given; repeatable"),
        Flag("--control-vector", value: "FILE[:SCALE],…", repeatable: true,
             help: "control vectors added to the hidden state, summed (llama.cpp's); repeatable"),
        Flag("--control-vector-scaled", value: "FILE:SCALE,…", repeatable: true,
             help: "the same with every scale given; repeatable"),
        controlVectorLayerRange,
    ]

    /// The cache and adapter flags: how the weights are used.
    static var weights: [Flag] { cache + adapters }

    /// Every model flag of a command that loads one model for generation.
    static var all: [Flag] { [model] + loading + weights }

    /// `--prompt-cache` and `--no-prompt-cache` (`run`, `chat`, `serve`): the prompt cache on disk is
    /// on by default, so the first flag only makes a clash with speculation an error.
    static let promptCaching: [Flag] = [
        Flag("--prompt-cache", option: "promptCache", help: """
            keep evaluated prompts on disk ($LLMKIT_HOME/cache/prompts, 2 GiB at most), so that
            another run whose prompt starts the same way (256 tokens or more) starts warm; on by
            default, but off with speculation (giving it then is an error)
            """),
        Flag("--no-prompt-cache", help: "neither read nor write the prompt cache on disk"),
    ]

    /// The prompt cache of `run`, `chat` and `serve`: the standard folder unless
    /// `--no-prompt-cache`. Speculation cannot use it, so with speculation it is left out unless
    /// `--prompt-cache` asks for it (and the model's configuration check then names the clash).
    static func promptCache(_ arguments: ParsedArguments, speculates: Bool) throws -> LocalModel.PromptCache? {
        if arguments.has("--prompt-cache") && arguments.has("--no-prompt-cache") {
            throw UsageError(message: "--prompt-cache and --no-prompt-cache contradict each other")
        }
        if arguments.has("--no-prompt-cache") || (speculates && !arguments.has("--prompt-cache")) { return nil }
        return .standard
    }

    /// The model flags of `embed`, `rerank` and `bench`, which describe `--model`, the threads,
    /// the context and the GPU layers in their own words: every one but `--fit`.
    static var withoutFitting: [Flag] { all.filter { $0.name != fit.name } }

    /// One pool of KV cells for all sequences, or cells of each sequence's own (`bench --parallel`,
    /// `serve`, `fit`).
    static let cacheLayout: [Flag] = [
        Flag("--kv-unified", "-kvu", help: "one pool of KV cells for all sequences (llama.cpp's -kvu)"),
        Flag("--no-kv-unified", "-no-kvu", help: """
            cells of each sequence's own (-no-kvu); default: cells per sequence
            on the CPU, one pool with layers on a GPU
            """),
    ]

    /// The help text of `--model`.
    static var modelHelp: String { Flag.help([model]) }
    /// The help text of the cache flags (`serve` and `fit` list them).
    static var cacheHelp: String { Flag.help(weights) }

    /// The model file: `--model`, else `$LLMKIT_MODEL`, else the default model.
    static func modelURL(_ arguments: ParsedArguments) async throws -> URL {
        if let name = arguments.value("--model") {
            return try await locate(name)
        }
        return try LocalModel.defaultModelURL()
    }

    /// A model the user named, in one order for `--model`, `info`, `show`, `rm`, `fit`, `embed`,
    /// `--draft-model` and `serve`: a path (holding `/` or ending in `.gguf`) that exists; then
    /// the library's order (``ModelLibrary/entry(named:)``: a selection, a library id or
    /// `default`, a name a user gave, a catalog id, a name from a file or a cache); then any
    /// other file of that name.
    /// - Throws: ``ModelLibrary/Error/notDownloaded(catalogID:)``, ``ModelLibrary/Error/ambiguousName(_:ids:)``,
    ///   or ``ModelNameError`` with the nearest known names for a name that is none of these.
    static func locate(_ name: String) async throws -> URL {
        switch try await target(name) {
        case .entry(let entry): return entry.url
        case .file(let url): return url
        }
    }

    /// A model the user named, as ``locate(_:)`` finds it; the LoRA adapters its library entry
    /// carries (``ModelLibrary/Entry/adapters``) go into `configuration`, before any of `--lora`.
    static func locate(_ name: String, addingAdaptersTo configuration: inout LocalModel.Configuration) async throws -> URL {
        switch try await target(name) {
        case .entry(let entry):
            configuration.weights.adapters = entry.adapters + configuration.weights.adapters
            return entry.url
        case .file(let url):
            return url
        }
    }

    /// What a name on the command line names: a model that the library finds, or a file.
    enum Target {
        /// A model of the library, of a cache or the bootstrap's.
        case entry(ModelLibrary.Entry)
        /// A file outside those (missing, for a path: loading then names it).
        case file(URL)
    }

    /// What `name` names, in the order of ``locate(_:)``.
    /// - Throws: what ``locate(_:)`` throws.
    static func target(_ name: String, in library: ModelLibrary = ModelLibrary()) async throws -> Target {
        let path = URL(filePath: name)
        let isPath = name.contains("/") || name.hasSuffix(".gguf")
        if isPath && FileManager.default.fileExists(atPath: path.path) { return .file(path) }
        if let entry = try await library.entry(named: name) { return .entry(entry) }
        do {
            return .file(try await library.file(named: name))     // a `file:` selection, or the typed error
        } catch ModelLibrary.Error.modelNotFound {
            if isPath || FileManager.default.fileExists(atPath: path.path) { return .file(path) }
            throw ModelNameError(name: name, nearest: Suggestion.nearestNames(to: name, among: await library.knownNames()))
        }
    }

    /// The load configuration from the shared flags.
    static func configuration(_ arguments: ParsedArguments) throws -> LocalModel.Configuration {
        var configuration = LocalModel.Configuration()
        configuration.context.threads = try arguments.integer("--threads", in: 1...1024)
        configuration.context.length = try arguments.integer("--context", in: 1...(1 << 24))
        configuration.weights.gpuLayers = try arguments.integer("--gpu-layers", in: 0...100_000)
        if arguments.has("--kv-unified") && arguments.has("--no-kv-unified") {
            throw UsageError(message: "--kv-unified and --no-kv-unified contradict each other")
        }
        if arguments.has("--kv-unified") { configuration.context.cacheLayout = .unified }
        if arguments.has("--no-kv-unified") { configuration.context.cacheLayout = .perSequence }
        if arguments.has("--fit") { configuration.memoryFit = .automatic }
        configuration.weights.rpcServers = try rpcServers(arguments)
        configuration.weights.tensorSplit = try tensorSplit(arguments)
        try configureCache(&configuration, arguments)
        configuration.weights.adapters = try adapters(arguments)
        try configureControlVectors(&configuration, arguments)
        try MediaFlags.configure(&configuration, arguments)
        return configuration
    }

    /// `--lora FILE[:SCALE],…` (scale 1 unless given) and `--lora-scaled FILE:SCALE,…`, as
    /// llama.cpp takes them, each repeatable.
    static func adapters(_ arguments: ParsedArguments) throws -> [LocalModel.Configuration.Adapter] {
        try scaledFiles(arguments, "--lora", "--lora-scaled").map { .init(url: $0.url, scale: $0.scale) }
    }

    /// `--control-vector FILE[:SCALE],…`, `--control-vector-scaled FILE:SCALE,…` and
    /// `--control-vector-layer-range START END`, as llama.cpp takes them.
    static func configureControlVectors(_ configuration: inout LocalModel.Configuration, _ arguments: ParsedArguments) throws {
        configuration.weights.controlVectors = try scaledFiles(arguments, "--control-vector", "--control-vector-scaled")
            .map { .init(url: $0.url, scale: $0.scale) }
        guard let range = try arguments.integerList("--control-vector-layer-range", in: 1...100_000) else { return }
        guard range.count == 2, range[0] <= range[1] else {
            throw UsageError(message: "--control-vector-layer-range takes START END, the first layer and the last (START ≤ END)")
        }
        configuration.weights.controlVectorLayers = range[0]...range[1]
    }

    /// The files of `plain` (`FILE[:SCALE],…`: a suffix that reads as a number is a scale,
    /// unless the whole item names a file) and of `scaled` (`FILE:SCALE,…`).
    private static func scaledFiles(_ arguments: ParsedArguments, _ plain: String, _ scaled: String) throws -> [(url: URL, scale: Float)] {
        var files: [(url: URL, scale: Float)] = []
        for value in arguments.allValues(plain) {
            for path in value.split(separator: ",").map(String.init) where !path.isEmpty {
                if !FileManager.default.fileExists(atPath: path), let colon = path.lastIndex(of: ":"),
                   let scale = Float(path[path.index(after: colon)...]) {
                    guard scale.isFinite else { throw UsageError(message: "\(plain) takes FILE[:SCALE] (a finite number), not \(path)") }
                    files.append((URL(filePath: String(path[..<colon])), scale))
                } else {
                    files.append((URL(filePath: path), 1))
                }
            }
        }
        for value in arguments.allValues(scaled) {
            for item in value.split(separator: ",").map(String.init) where !item.isEmpty {
                guard let colon = item.lastIndex(of: ":"), let scale = Float(item[item.index(after: colon)...]), scale.isFinite else {
                    throw UsageError(message: "\(scaled) takes FILE:SCALE (a finite number), not \(item)")
                }
                files.append((URL(filePath: String(item[..<colon])), scale))
            }
        }
        return files
    }

    /// `--cache-type-k`, `--cache-type-v` and `--flash-attn` (also llama-bench's `1` and `0`).
    static func configureCache(_ configuration: inout LocalModel.Configuration, _ arguments: ParsedArguments) throws {
        func cacheType(_ flag: String) throws -> LocalModel.Configuration.CacheType? {
            guard let value = arguments.value(flag) else { return nil }
            guard let type = LocalModel.Configuration.CacheType(rawValue: value.lowercased()) else {
                throw UsageError(message: "\(flag) takes \(LocalModel.Configuration.CacheType.allCases.map(\.rawValue).joined(separator: ", ")), not \(value)")
            }
            return type
        }
        configuration.context.keyCacheType = try cacheType("--cache-type-k") ?? .f16
        configuration.context.valueCacheType = try cacheType("--cache-type-v") ?? .f16
        if let value = arguments.value("--flash-attn") {
            let spellings: [String: LocalModel.Configuration.FlashAttention] = ["on": .on, "1": .on, "off": .off, "0": .off, "auto": .auto]
            guard let setting = spellings[value.lowercased()] else { throw UsageError(message: "--flash-attn takes on, off or auto, not \(value)") }
            configuration.context.flashAttention = setting
        }
        if configuration.context.valueCacheType.isQuantized && configuration.context.flashAttention == .off {
            throw UsageError(message: "--cache-type-v \(configuration.context.valueCacheType.rawValue) needs flash attention, which --flash-attn off "
                             + "turns off: give --flash-attn on (or auto), or leave --cache-type-v f16")
        }
    }

    /// Applies `--verbose` and loads the model, with the speculation of ``SpeculationFlags`` when
    /// the command has them.
    /// - Parameter reusesPrefixes: whether a later request may continue an earlier one's tokens
    ///   (a chat's turns, a tool's rounds, a server's requests). Without that, without
    ///   speculation (which drops rejected drafts) and without `--prompt-cache` asked for (its
    ///   entries are prefixes for later processes), a sliding-window model keeps only its window's
    ///   cache, as llama-completion does, instead of the full-size one prefix reuse needs; the
    ///   default prompt cache then stays unused for that model.
    /// - Parameter cachesPrompts: whether the command keeps prompts on disk (``promptCaching``).
    static func load(_ arguments: ParsedArguments, configuration: LocalModel.Configuration? = nil,
                     reusesPrefixes: Bool = true, cachesPrompts: Bool = false) async throws -> LocalModel {
        if arguments.has("--verbose") { LlamaLog.logToStandardError(minimumLevel: .info) }
        var configuration = try configuration ?? self.configuration(arguments)
        if !configuration.serving.speculation.isEnabled { configuration.serving.speculation = try await SpeculationFlags.speculation(arguments) }
        if cachesPrompts {
            configuration.context.promptCache = try promptCache(arguments, speculates: configuration.serving.speculation.isEnabled)
        }
        if !reusesPrefixes && !configuration.serving.speculation.isEnabled && !arguments.has("--prompt-cache") {
            configuration.context.usesFullSlidingWindowCache = false
        }
        let url = if let name = arguments.value("--model") {
            try await locate(name, addingAdaptersTo: &configuration)
        } else {
            try LocalModel.defaultModelURL()
        }
        return try await LocalModel.load(from: url, configuration: configuration)
    }

    /// `--rpc HOST:PORT,…`.
    static func rpcServers(_ arguments: ParsedArguments) throws -> [String] {
        guard let value = arguments.value("--rpc") else { return [] }
        let servers = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !servers.isEmpty else { throw UsageError(message: "--rpc takes HOST:PORT[,HOST:PORT…]") }
        return servers
    }

    /// `--tensor-split A,B,…` (llama.cpp also separates with `/`).
    static func tensorSplit(_ arguments: ParsedArguments) throws -> [Double]? {
        guard let value = arguments.value("--tensor-split") else { return nil }
        let shares = value.split(whereSeparator: { $0 == "," || $0 == "/" }).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !shares.isEmpty, let values = shares as? [Double] else {
            throw UsageError(message: "--tensor-split takes numbers separated by commas, such as 3,1, not \(value)")
        }
        return values
    }
}
