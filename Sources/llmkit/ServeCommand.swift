import Foundation
import LocalLLMKit
import LocalLLMKitServer
import LocalLLMKitTools

/// `llmkit serve`: an OpenAI-compatible HTTP server over one or more models.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        usage: "usage: llmkit serve [--model M]... [--host ADDR] [--port N] [--parallel N] [--queue N] [--api-key KEY | --api-key-file F] [options]",
        help: """
        Serve models over OpenAI's HTTP API: POST /v1/chat/completions (streaming, tools,
        response_format), POST /v1/completions, POST /v1/embeddings, GET /v1/models, GET /v1/ps,
        POST /v1/models/unload (llmkit stop), GET /health, GET /metrics, llama-server's POST
        /tokenize, /detokenize and /apply-template, Anthropic's POST /v1/messages (and
        /v1/messages/count_tokens; the key also as x-api-key), and Ollama's /api/chat,
        /api/generate, /api/embed, /api/embeddings, /api/tags, /api/show, /api/ps, /api/version,
        /api/pull, /api/copy and /api/delete, and POST /v1/rerank (for a reranker: llama-server's
        Jina/Cohere shape). An embedding model (all-MiniLM-L6-v2) serves /v1/embeddings only. Besides the --model models, a request may name any model of the
        library (`llmkit list`), loaded when needed. A server of one --model answers with it
        whatever other model name a client sends.
        Any OpenAI client works with base URL http://HOST:PORT/v1. Requests run together on
        each model's sequences; past them they queue, and past the queue they get 429.

          -m, --model M        a model to serve (repeatable): a GGUF path, or a library id or name
                               (default: $LLMKIT_MODEL, else the bootstrap's model). Clients name it by
                               the name given, or by a file's name without .gguf; NAME=M sets the name
          --host ADDR          address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: all)
          --port N             port (default 8080; 0 picks a free one, printed on stderr)
          -np, --parallel N    requests generating at once per model (default 4)
          -kvu, --kv-unified   one pool of KV cells for all of a model's sequences (a reused prefix is
                               shared, not copied); -no-kvu, --no-kv-unified: cells of each sequence's
                               own, so that a token attends only over its own sequence's; default:
                               cells per sequence on the CPU, one pool with layers on a GPU
          --queue N            requests waiting per model before 429 (default 64)
          --keep-alive S       unload a model that nobody used for S seconds (loaded again by the next
                               request for it); by default models stay loaded. A model that needs memory
                               another holds unloads the least recently used idle one first
          -c, --context N      context length per request, in tokens (default: training length, at most 4096)
          -t, --threads N      CPU threads
          -ngl, --gpu-layers N layers to offload to the GPU
          --fit                fit the context length and GPU layers not given to the memory free on this
                               machine, for each model (`llmkit fit` shows the plan)
          --rpc HOST:PORT,…    put offloaded layers on these llama.cpp RPC servers too (`llmkit rpc-server`;
                               no authentication or encryption: trusted networks only)
          -ts, --tensor-split A,B,…  each device's share of the offloaded layers (RPC servers' devices, then GPUs)
        \(ModelOptions.cacheHelp)
        \(Flag.help(ModelOptions.promptCaching))
        \(SpeculationFlags.help)
                               (for every model that generates; an embedding model is served as it is)
          --api-key KEY        require `Authorization: Bearer KEY` on every endpoint but /health
                               (also $LLMKIT_API_KEY); the key file is safer: a command line is visible to ps.
                               A --host other machines can reach needs a key (or --insecure-no-auth)
          --api-key-file F     read the key from the first line of F
          --insecure-no-auth   serve a non-loopback --host without a key: anyone who can reach it may use it
          --allowed-host NAME  also answer requests whose Host header is NAME (repeatable); by default only
                               localhost and IP addresses, which keeps web pages out by DNS rebinding
          --cors ORIGIN        let browsers on ORIGIN call the server (* for any); no CORS by default
          --no-library         serve the --model models only, not the library's
          --no-library-changes clients may not pull, copy or delete the library's models (by default
                               they may: /api/pull downloads what a client names)
          --alias NAME         the name the one --model is listed and answers under (as NAME=M does)
          --chat-template T    a chat template for every --model: a Jinja file, an installed name, or
                               a llama.cpp built-in (chatml, …); --chat-template list shows them
          --mmproj FILE        the projector (an mmproj GGUF) of the one --model; by default each model
                               takes the mmproj*.gguf beside it, if any; --no-mmproj: none
          --allow-image-urls   fetch the http(s) image URLs of chat requests (public addresses only, as
                               load_webpage; --allow-local-network allows private ones); by default
                               images come as data: URLs only
          --max-body BYTES     largest request body (default 8388608); larger get 413
          --header-timeout S   seconds for a request's headers to arrive (default 5)
          --request-timeout S  seconds for a whole request to arrive (default 15)
          --drain S            on SIGTERM or Ctrl-C, seconds that requests in flight may finish (default 10)
          --log-requests       log method, path, status and time of each request to stderr, and for a
                               streamed chat answer where the time to its first content went (never content)
          -v, --verbose        show llama.cpp's log on stderr
          -h, --help           show this help

        SIGTERM or Ctrl-C stops taking requests, lets those in flight finish (up to --drain),
        and exits 0.
        """,
        flags: ModelOptions.basics + ModelOptions.placement + [ModelOptions.fit, ModelOptions.verbose] + ModelOptions.weights + ModelOptions.promptCaching
            + ModelOptions.cacheLayout + SpeculationFlags.all,
        valueOptions: ["--model", "--host", "--port", "--parallel", "--queue", "--api-key", "--api-key-file", "--cors", "--max-body",
                       "--header-timeout", "--request-timeout", "--allowed-host", "--drain", "--keep-alive", "--mmproj", "--alias",
                       "--chat-template"],
        flagOptions: ["--log-requests", "--insecure-no-auth", "--no-mmproj", "--allow-image-urls", "--allow-local-network",
                      "--no-library", "--no-library-changes"],
        repeatableOptions: ["--model", "--allowed-host"],
        aliases: ["-np": "--parallel"]
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        var configuration = try ModelOptions.configuration(arguments)
        configuration.serving.parallelSequences = try arguments.integer("--parallel", in: 1...256) ?? 4
        configuration.serving.maximumQueuedRequests = try arguments.integer("--queue", in: 0...65536) ?? 64
        configuration.context.batchSize = max(configuration.context.batchSize, configuration.serving.parallelSequences)
        var server = ModelServer.Configuration()
        server.host = arguments.value("--host") ?? server.host
        server.port = try arguments.integer("--port", in: 0...65535) ?? server.port
        server.apiKey = try apiKey(arguments)
        server.allowsUnauthenticatedRemoteAccess = arguments.has("--insecure-no-auth")
        server.allowedHosts = arguments.allValues("--allowed-host")
        server.corsOrigin = arguments.value("--cors")
        server.maximumBodyBytes = try arguments.integer("--max-body", in: 1024...(1 << 30)) ?? server.maximumBodyBytes
        server.requestTimeout = .seconds(try arguments.integer("--request-timeout", in: 1...3600) ?? 15)
        server.headerTimeout = .seconds(try arguments.integer("--header-timeout", in: 1...3600) ?? 5)
        if server.headerTimeout > server.requestTimeout { server.headerTimeout = server.requestTimeout }
        if server.apiKey == nil, server.isExposed, !server.allowsUnauthenticatedRemoteAccess {
            throw UsageError(message: "--host \(server.host) can be reached from other machines, and without an API key anyone "
                             + "there could use the models: give --api-key-file F (or --api-key, $LLMKIT_API_KEY), "
                             + "bind 127.0.0.1, or say --insecure-no-auth")
        }
        server.logsRequests = arguments.has("--log-requests")
        if arguments.value("--mmproj") != nil && arguments.allValues("--model").count > 1 {
            throw UsageError(message: "--mmproj names the projector of one model; with several, put each model's mmproj*.gguf beside it")
        }
        if arguments.has("--allow-image-urls") {
            let fetcher = WebPageTool.MediaFetcher(allowsPrivateNetworks: arguments.has("--allow-local-network"))
            server.mediaFetcher = ModelServer.MediaFetcher { url, limit in try await fetcher.fetch(url, maximumBytes: limit) }
        } else if arguments.has("--allow-local-network") {
            throw UsageError(message: "--allow-local-network applies to --allow-image-urls, which is not given")
        }
        let drain = Duration.seconds(try arguments.integer("--drain", in: 0...3600) ?? 10)
        try server.validate()
        if arguments.has("--verbose") { LlamaLog.logToStandardError(minimumLevel: .info) }

        let speculation = try await SpeculationFlags.speculation(arguments, constrainsOutput: true)
        configuration.context.promptCache = try ModelOptions.promptCache(arguments, speculates: false)   // the library's models
        let keepAlive = try arguments.integer("--keep-alive", in: 0...(1 << 30)).map { Duration.seconds($0) }
        let residency = LoadedModels(policy: .init(keepAlive: keepAlive))
        var models: [String: ModelServer.Source] = [:]
        let names = arguments.allValues("--model")
        let alias = arguments.value("--alias")
        if alias != nil && names.count > 1 {
            throw UsageError(message: "--alias names the one --model; with several, name each with NAME=MODEL")
        }
        if let alias, alias.isEmpty { throw UsageError(message: "--alias is empty") }
        let chatTemplate = try arguments.value("--chat-template").map(GenerationFlags.templateSource)
        for name in names.isEmpty ? [nil] : names.map(Optional.some) {
            var modelConfiguration = configuration
            var (id, url) = try await locate(name, addingAdaptersTo: &modelConfiguration)
            if let alias { id = alias }
            guard models[id] == nil else { throw UsageError(message: "two models are named '\(id)'; name them with NAME=MODEL") }
            // An embedding model generates nothing to speculate on.
            if (try? GGUFFile(modelAt: url))?.generationProblem == nil { modelConfiguration.serving.speculation = speculation }
            modelConfiguration.context.promptCache = try ModelOptions.promptCache(arguments, speculates: modelConfiguration.serving.speculation.isEnabled)
            models[id] = ModelServer.Source(url: url, configuration: modelConfiguration, chatTemplate: chatTemplate)
            // Loaded now, so that a model (or a chat template) that cannot load stops the server before it listens.
            let loaded = try await residency.model(at: url, configuration: modelConfiguration)
            if let chatTemplate, loaded.file.generationProblem == nil { _ = try ChatTemplate(model: loaded, override: chatTemplate) }
        }
        if arguments.has("--no-library") && arguments.has("--no-library-changes") {
            throw UsageError(message: "--no-library-changes applies to the library, which --no-library leaves out")
        }
        let library = arguments.has("--no-library") ? nil
            : ModelServer.LibraryAccess(library: ModelLibrary(), configuration: configuration, allowsChanges: !arguments.has("--no-library-changes"))
        let running = try await ModelServer(sources: models, residency: residency, library: library, configuration: server)
        let (stopRequests, stop) = AsyncStream<Void>.makeStream()
        Console.message("llmkit serve: listening on \(running.baseURL.absoluteString) (models: \(models.keys.sorted().joined(separator: ", ")); "
                        + "\(configuration.serving.parallelSequences) sequences and a queue of \(configuration.serving.maximumQueuedRequests) each"
                        + (speculation.isEnabled ? "; speculation: \(speculation))" : ")"))
        await InterruptHandler.shared.whileRunning(cancel: { stop.yield() }) {
            for await _ in stopRequests { break }
        }
        Console.message("llmkit serve: stopping; requests in flight may finish for \(drain.components.seconds) s")
        await running.stop(drainingFor: drain)
        for entry in await residency.entries { await entry.model.flushPromptCache() }
        InterruptHandler.shared.acknowledgeTermination()
        Console.message("llmkit serve: stopped")
        return .success
    }

    /// A `--model` value: `NAME=MODEL`, or a model whose id is its name (a file's name without
    /// .gguf); the adapters its library entry carries go into `configuration`.
    private static func locate(_ value: String?, addingAdaptersTo configuration: inout LocalModel.Configuration) async throws
        -> (id: String, url: URL) {
        guard let value else {
            let url = try LocalModel.defaultModelURL()
            return (url.deletingPathExtension().lastPathComponent, url)
        }
        var id = value
        var name = value
        if let equals = value.firstIndex(of: "="), !FileManager.default.fileExists(atPath: value) {
            id = String(value[..<equals])
            name = String(value[value.index(after: equals)...])
        } else if value.contains("/") || value.hasSuffix(".gguf") {
            id = URL(filePath: value).deletingPathExtension().lastPathComponent
        }
        guard !id.isEmpty else { throw UsageError(message: "--model \(value): the name before = is empty") }
        return (id, try await ModelOptions.locate(name, addingAdaptersTo: &configuration))
    }

    /// The API key: `--api-key`, else the first line of `--api-key-file`, else `$LLMKIT_API_KEY`.
    private static func apiKey(_ arguments: ParsedArguments) throws -> String? {
        if arguments.value("--api-key") != nil, arguments.value("--api-key-file") != nil {
            throw UsageError(message: "give --api-key or --api-key-file, not both")
        }
        if let key = arguments.value("--api-key") {
            guard !key.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw UsageError(message: "--api-key is empty, which would turn authentication off; give a key, or leave --api-key out")
            }
            return key
        }
        if let path = arguments.value("--api-key-file") {
            let text: String
            do {
                text = try UserFile.text(at: path, limit: 1 << 16)
            } catch {
                throw UsageError(message: "--api-key-file \(path): cannot read it: \(error.reason)")
            }
            guard let line = text.split(whereSeparator: \.isNewline).first,
                  !line.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw UsageError(message: "--api-key-file \(path): its first line holds no key")
            }
            return String(line).trimmingCharacters(in: .whitespaces)
        }
        guard let key = ProcessInfo.processInfo.environment["LLMKIT_API_KEY"] else { return nil }
        guard !key.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError(message: "LLMKIT_API_KEY is set but empty, which would turn authentication off; "
                             + "set a key, or unset it")
        }
        return key
    }
}
