import Foundation
import LocalLLMKit
import LocalLLMKitTools

/// The generation flags shared by `run` and `chat`: sampling, then chat-only flags.
enum GenerationFlags {
    static let samplingValueOptions: Set<String> = [
        "--max-tokens", "--temperature", "--top-k", "--top-p", "--min-p", "--repeat-penalty",
        "--presence-penalty", "--frequency-penalty", "--seed", "--stop", "--schema", "--grammar",
    ]
    /// Flags that only make sense with a chat template.
    static let chatValueOptions: Set<String> = [
        "--system", "--chat-template", "--thinking-budget", "--thinking-message", "--tools", "--tool-choice", "--max-tool-rounds",
    ]
    static let chatFlagOptions: Set<String> = ["--thinking", "--show-thinking", "--allow-local-network"]

    static var valueOptions: Set<String> { samplingValueOptions.union(chatValueOptions) }
    static var flagOptions: Set<String> { chatFlagOptions.union(["--balanced-json"]) }
    static let aliases = ["-n": "--max-tokens", "-s": "--seed"]

    static let samplingHelp = """
      -n, --max-tokens N       most tokens to generate (default: until the context is full)
          --temperature T      sampling temperature; 0 = greedy (default: the model's, else 0.8)
          --top-k K            top-k sampling; 0 = off (default: 40)
          --top-p P            top-p (nucleus) sampling; 1 = off (default: 0.95)
          --min-p P            min-p sampling; 0 = off (default: 0.05)
          --repeat-penalty R   repetition penalty; 1 = off
          --presence-penalty R presence penalty; 0 = off
          --frequency-penalty R frequency penalty; 0 = off
      -s, --seed S             random seed, for reproducible sampling
          --stop TEXT          stop before TEXT (repeatable)
          --schema FILE.json   answer with JSON that follows this JSON Schema (enforced by a grammar)
          --grammar FILE.gbnf  answer with text that follows this GBNF grammar (root rule: root)
          --balanced-json      stop at the end of the first complete JSON object or array
    """

    static let chatHelp = """
          --system TEXT        system message (instructions)
          --chat-template FILE Jinja chat template (or a built-in name such as chatml) instead of the model's
          --thinking           let the model think first (templates with enable_thinking)
          --thinking-budget N  most thinking tokens before the end of thinking is forced; 0 = none
          --thinking-message T text inserted when the thinking budget runs out
          --show-thinking      print the thinking to stderr
          --tools LIST         tools the model may call: calculate, convert_units, load_webpage (comma-separated)
          --tool-choice C      auto (default), none, required, or a tool's name (the first round must call it)
          --max-tool-rounds N  most rounds of tool calls per answer (default: 4)
          --allow-local-network  let load_webpage reach loopback and private addresses
    """

    /// The first chat-only flag present, for the usage error of `run --raw`.
    static func chatOnlyFlag(in arguments: ParsedArguments) -> String? {
        chatValueOptions.union(chatFlagOptions).sorted().first { arguments.value($0) != nil || arguments.has($0) }
    }

    /// What the flags ask of one answer: the options, the output format, thinking and tools.
    struct Request {
        var options: CompletionOptions
        var format: OutputFormat
        var thinking: Conversation.Thinking
        var toolPolicy: Conversation.ToolPolicy
    }

    /// The request from the flags.
    static func request(_ arguments: ParsedArguments) throws -> Request {
        var sampling = CompletionOptions.Sampling()
        sampling.temperature = try arguments.number("--temperature")
        sampling.topK = try arguments.integer("--top-k", in: 0...Int.max)
        sampling.topP = try arguments.number("--top-p")
        sampling.minP = try arguments.number("--min-p")
        sampling.repetitionPenalty = try arguments.number("--repeat-penalty")
        sampling.presencePenalty = try arguments.number("--presence-penalty")
        sampling.frequencyPenalty = try arguments.number("--frequency-penalty")
        if let seed = try arguments.integer("--seed", in: 0...Int(UInt32.max - 1)) { sampling.seed = UInt32(seed) }
        let options = CompletionOptions(maximumResponseTokens: try arguments.integer("--max-tokens", in: 1...Int.max),
                                        stopSequences: arguments.allValues("--stop"), sampling: sampling,
                                        stopsAtBalancedJSON: arguments.has("--balanced-json"))
        let format: OutputFormat
        switch (arguments.value("--schema"), arguments.value("--grammar")) {
        case (_?, _?): throw UsageError(message: "--schema and --grammar cannot be combined")
        case (let path?, nil): format = .jsonSchema(try readFile(path, option: "--schema"))
        case (nil, let path?): format = .grammar(try readFile(path, option: "--grammar"))
        case (nil, nil): format = .text
        }
        var toolPolicy = Conversation.ToolPolicy(maximumRounds: try arguments.integer("--max-tool-rounds", in: 0...100) ?? 4)
        switch arguments.value("--tool-choice") {
        case nil, "auto"?: toolPolicy.choice = .auto
        case "none"?: toolPolicy.choice = .none
        case "required"?: toolPolicy.choice = .required
        case let name?: toolPolicy.choice = .named(name)
        }
        let thinking = Conversation.Thinking(isEnabled: arguments.has("--thinking"),
                                             budget: try arguments.integer("--thinking-budget", in: 0...Int(Int32.max)),
                                             budgetMessage: arguments.value("--thinking-message"))
        do {
            try options.validate()
            try thinking.validate()
            try toolPolicy.validate()
        } catch LocalModel.Error.invalidOption(let name, let reason) {
            throw UsageError(message: "invalid value for \(ErrorWording.flags[name] ?? name): \(reason)")
        }
        return Request(options: options, format: format, thinking: thinking, toolPolicy: toolPolicy)
    }

    /// The text of a file an option names, or an error naming the option and the file.
    static func readFile(_ path: String, option: String) throws -> String {
        do {
            return try String(contentsOf: URL(filePath: path), encoding: .utf8)
        } catch {
            throw InputFileError(option: option, reason: "cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// A conversation with `--system` and `--chat-template` applied.
    static func conversation(_ arguments: ParsedArguments, model: LocalModel) throws -> Conversation {
        var configuration = Conversation.Configuration()
        if let path = arguments.value("--chat-template") {
            configuration.chatTemplate = try templateSource(path)
        }
        let conversation = try Conversation(model: model, instructions: arguments.value("--system"),
                                            tools: try tools(arguments), configuration: configuration)
        warnAboutReplacedTemplate(conversation.template)
        return conversation
    }

    /// One line on stderr when the model's embedded template could not be used and another
    /// replaced it: the model may then be prompted in a format it was not trained on.
    static func warnAboutReplacedTemplate(_ template: ChatTemplate) {
        guard let error = template.embeddedTemplateError else { return }
        let reason = (error.errorDescription ?? "\(error)").replacingOccurrences(of: "\n", with: " ")
        Console.err("llmkit: warning: the model's embedded chat template cannot be used (\(reason)); using \(template.source) instead\n")
    }

    /// The bundled tools named by `--tools`.
    static func tools(_ arguments: ParsedArguments) throws -> [any ConversationTool] {
        guard let list = arguments.value("--tools") else { return [] }
        let webPage = WebPageTool(configuration: .init(allowsPrivateNetworks: arguments.has("--allow-local-network")))
        let available: [String: any ConversationTool] = [
            "calculate": CalculatorTool(), "convert_units": UnitConversionTool(), "load_webpage": webPage,
        ]
        return try list.split(separator: ",").map { name in
            let key = name.trimmingCharacters(in: .whitespaces)
            guard let tool = available[key] else {
                throw UsageError(message: "unknown tool '\(key)' for --tools; the tools are \(available.keys.sorted().joined(separator: ", "))")
            }
            return tool
        }
    }

    /// The template text of `--chat-template`: a file, or a built-in template name.
    static func templateSource(_ value: String) throws -> String {
        if !FileManager.default.fileExists(atPath: value), ChatTemplate.builtinNames().contains(value) {
            return value
        }
        do {
            return try String(contentsOf: URL(filePath: value), encoding: .utf8)
        } catch {
            throw ChatTemplate.Error.failed(reason: "cannot read \(value): \(error.localizedDescription)")
        }
    }
}

/// Prints a conversation turn: the answer on stdout, the thinking on stderr when asked.
struct ChatPrinter {
    let json: Bool
    let showThinking: Bool
    /// Whether Ctrl-C cancels the stream here; `llmkit chat` on a terminal handles Ctrl-C
    /// itself, by cancelling the task that runs `stream`.
    var cancelsOnInterrupt = true

    /// Streams the events and returns the response; the answer ends with a newline.
    func stream(_ stream: Conversation.ResponseStream) async throws -> ModelResponse<String> {
        guard cancelsOnInterrupt else { return try await consume(stream) }
        return try await InterruptHandler.shared.whileRunning(cancel: { stream.cancel() }) {
            try await consume(stream)
        }
    }

    /// Prints the events as they come, then returns the response.
    private func consume(_ stream: Conversation.ResponseStream) async throws -> ModelResponse<String> {
        var printed = ""
        for try await event in stream where !json {
            switch event {
            case .thinking(let delta):
                if showThinking { Console.err(TerminalText.escaped(delta, keepingLineBreaks: true)) }
            case .text(let delta):
                Console.answer(delta)
                printed += delta
            case .snapshot(let text, _):
                // A parse rewrote streamed text; print what is new when it still extends it.
                if text.hasPrefix(printed) {
                    Console.answer(String(text.dropFirst(printed.count)))
                    printed = text
                }
            case .toolCallStarted(let call):
                Console.message("[\(call.id)] \(call.name)(\(call.arguments))")
            case .toolCallFinished(let call):
                Console.message("[\(call.id)] \(call.isError ? "error" : "→") \((call.output ?? "").prefix(300))")
            case .done(let response):
                if !json && !response.text.hasSuffix("\n") { Console.out("\n") }
            }
        }
        return try await stream.result
    }
}
