import Foundation
import LocalLLMKit
import LocalLLMKitTools

/// The generation flags shared by `run` and `chat`: sampling, then chat-only flags.
enum GenerationFlags {
    /// The everyday flags, shown first: the answer's length, the temperature, the system message.
    static let everyday: [Flag] = [
        Flag("--max-tokens", "-n", "--n-predict", value: "N", option: "maximumResponseTokens", help: """
            most tokens to generate (default: 1024, or until the context is full when
            --context is smaller; -1: until the context is full)
            """),
        Flag("--temperature", "--temp", value: "T", option: "sampling.temperature",
             help: "sampling temperature; 0 = greedy (default: the model's, else 0.8)"),
        Flag("--system", "-sys", "--system-prompt", value: "TEXT", help: "system message (instructions)"),
    ]

    /// The other sampling flags, with their llama.cpp spellings.
    static let sampling: [Flag] = [
        Flag("--top-k", value: "K", option: "sampling.topK", help: "top-k sampling; 0 = off (default: 40)"),
        Flag("--top-p", value: "P", option: "sampling.topP", help: "top-p (nucleus) sampling; 1 = off (default: 0.95)"),
        Flag("--min-p", value: "P", option: "sampling.minP", help: "min-p sampling; 0 = off (default: 0.05)"),
        Flag("--typical-p", "--typical", value: "P", option: "sampling.typicalP",
             help: "locally typical sampling; 1 = off (default)"),
        Flag("--repeat-penalty", value: "R", option: "sampling.repetitionPenalty", help: "repetition penalty; 1 = off"),
        Flag("--presence-penalty", value: "R", option: "sampling.presencePenalty", help: "presence penalty; 0 = off"),
        Flag("--frequency-penalty", value: "R", option: "sampling.frequencyPenalty", help: "frequency penalty; 0 = off"),
        Flag("--seed", "-s", value: "S", option: "sampling.seed", help: "random seed, for reproducible sampling"),
        Flag("--stop", "-r", "--reverse-prompt", value: "TEXT", repeatable: true, option: "stopSequences",
             help: #"stop before TEXT (repeatable); \n \t \r \\ \" \uXXXX are decoded"#),
    ]

    /// The structured-output flags.
    static let structured: [Flag] = [
        Flag("--schema", "-jf", "--json-schema-file", value: "FILE.json",
             help: "answer with JSON that follows this JSON Schema (enforced by a grammar)"),
        Flag("--json-schema", "-j", value: "TEXT", help: "the same with the schema given inline"),
        Flag("--grammar", "--grammar-file", value: "FILE.gbnf",
             help: "answer with text that follows this GBNF grammar (root rule: root)"),
        Flag("--balanced-json", help: "stop at the end of the first complete JSON object or array"),
    ]

    /// The chat-only flags but `--system` (in ``everyday``).
    static let chat: [Flag] = [
        Flag("--chat-template", "--chat-template-file", value: "T", option: "chatTemplate", help: """
            Jinja template file, installed template name (e.g. Qwen-Qwen3-0.6B) or
            llama.cpp built-in name (e.g. chatml) instead of the model's;
            `--chat-template list` prints the names
            """),
        Flag("--thinking", help: "let the model think first (templates with enable_thinking)"),
        Flag("--thinking-budget", value: "N", option: "thinking.budget",
             help: "most thinking tokens before the end of thinking is forced; 0 = none"),
        Flag("--thinking-message", value: "T", help: "text inserted when the thinking budget runs out"),
        Flag("--show-thinking", help: "print the thinking to stderr"),
        Flag("--tools", value: "LIST", help: """
            tools the model may call: calculate, convert_units, load_webpage (comma-separated);
            the calls and their results go to stderr (or into --json), the answer to stdout
            """),
        Flag("--tool-choice", value: "C",
             help: "auto (default), none, required, or a tool's name (the first round must call it)"),
        Flag("--max-tool-rounds", value: "N", option: "toolPolicy.maximumRounds",
             help: "most rounds of tool calls per answer (default: 4)"),
        Flag("--allow-local-network", help: "let load_webpage reach loopback and private addresses"),
    ]

    /// Every generation flag of `run` and `chat`.
    static var all: [Flag] { everyday + sampling + structured + chat }

    /// The flags that only make sense with a chat template.
    static var chatOnly: [Flag] { chat + everyday.filter { $0.name == "--system" } }

    /// The help text of the everyday flags.
    static var everydayHelp: String { Flag.help(everyday) }

    /// The flags under headings that `run` and `chat` show after their everyday ones.
    static var headedHelp: String { """
    sampling:
    \(Flag.help(sampling))

    chat template, thinking and tools:
    \(Flag.help(chat))

    structured output:
    \(Flag.help(structured))

    loading the model:
    \(Flag.help(ModelOptions.loading + ModelOptions.weights + ModelOptions.promptCaching))

    speculative decoding:
    \(Flag.help(SpeculationFlags.all))
    """ }

    /// The first chat-only flag present, for the usage error of `run --raw`.
    static func chatOnlyFlag(in arguments: ParsedArguments) -> String? {
        chatOnly.map(\.name).sorted().first { arguments.value($0) != nil || arguments.has($0) }
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
        sampling.typicalP = try arguments.number("--typical-p")
        sampling.repetitionPenalty = try arguments.number("--repeat-penalty")
        sampling.presencePenalty = try arguments.number("--presence-penalty")
        sampling.frequencyPenalty = try arguments.number("--frequency-penalty")
        if let seed = try arguments.integer("--seed", in: 0...Int(UInt32.max - 1)) { sampling.seed = UInt32(seed) }
        let options = CompletionOptions(maximumResponseTokens: try maximumTokens(arguments),
                                        stopSequences: try arguments.allValues("--stop").map { try EscapeSequences.decode($0, option: "--stop") },
                                        sampling: sampling,
                                        stopsAtBalancedJSON: arguments.has("--balanced-json"))
        let format = try outputFormat(arguments)
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

    /// The CLI's answer length when `--max-tokens` is not given: finite, so that a model that
    /// never ends its answer cannot run until the context is full.
    static let defaultMaximumTokens = 1024

    /// `--max-tokens`: a positive count, -1 for "until the context is full" (llama.cpp's spelling),
    /// else ``defaultMaximumTokens``, or until the context is full when `--context` is no larger
    /// than that default: a small context then bounds the answer itself, instead of an error that
    /// blames a limit the user never set.
    static func maximumTokens(_ arguments: ParsedArguments) throws -> Int? {
        guard let value = try arguments.integer("--max-tokens", in: -1...Int.max) else {
            if let context = try arguments.integer("--context", in: 1...(1 << 24)), context <= defaultMaximumTokens { return nil }
            return defaultMaximumTokens
        }
        if value == 0 { throw UsageError(message: "--max-tokens must be positive, or -1 for no limit") }
        return value == -1 ? nil : value
    }

    /// The output format of `--schema`, `--json-schema` or `--grammar` (at most one of them).
    static func outputFormat(_ arguments: ParsedArguments) throws -> OutputFormat {
        let given = ["--schema", "--json-schema", "--grammar"].filter { arguments.value($0) != nil }
        guard given.count <= 1 else {
            throw UsageError(message: "\(given.joined(separator: " and ")) cannot be combined")
        }
        if let path = arguments.value("--schema") { return .jsonSchema(try readFile(path, option: "--schema")) }
        if let text = arguments.value("--json-schema") { return .jsonSchema(text) }
        if let path = arguments.value("--grammar") { return .grammar(try readFile(path, option: "--grammar")) }
        return .text
    }

    /// The text of a file an option names, or an error naming the option and the file.
    static func readFile(_ path: String, option: String) throws -> String {
        do {
            return try UserFile.text(at: path)
        } catch {
            throw InputFileError(option: option, reason: "cannot read \(path): \(error.reason)")
        }
    }

    /// A conversation with `--system` and `--chat-template` applied.
    /// - Throws: ``ToolSupportError`` for `--tools` on a template that cannot render them, naming
    ///   an installed model whose template can; what ``Conversation/init(model:instructions:tools:configuration:)`` throws.
    static func conversation(_ arguments: ParsedArguments, model: LocalModel) async throws -> Conversation {
        var configuration = Conversation.Configuration()
        if let path = arguments.value("--chat-template") {
            configuration.chatTemplate = try templateSource(path)
        }
        let conversation: Conversation
        do {
            conversation = try Conversation(model: model, instructions: arguments.value("--system"),
                                            tools: try tools(arguments), configuration: configuration)
        } catch ChatTemplate.Error.toolsUnsupported(let template) {
            throw ToolSupportError(template: template, model: model.url, alternative: await ToolSupportError.installedAlternative(to: model.url))
        }
        warnAboutReplacedTemplate(conversation.template)
        if configuration.chatTemplate == nil {
            warnAboutMissingTemplate(conversation.template, model: model)
        }
        if arguments.has("--thinking") && !conversation.template.supportsThinking {
            Console.err("llmkit: note: --thinking does nothing here: the chat template (\(conversation.template.source)) "
                        + "has no thinking phase (a template with enable_thinking has one)\n")
        }
        return conversation
    }

    /// One line on stderr when the model has no chat template of its own: it is probably a base
    /// model, which continues text rather than answering, so chat mode is rarely what was meant.
    static func warnAboutMissingTemplate(_ template: ChatTemplate, model: LocalModel) {
        guard template.embeddedTemplateError == nil else { return }
        switch template.source {
        case .builtin, .chatml:
            Console.err("llmkit: note: \(TerminalText.escaped(model.url.lastPathComponent)) has no chat template of its own "
                        + "(a base model?); using \(template.source); --raw continues text instead\n")
        case .override, .embedded:
            break
        }
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

    /// The template text of `--chat-template`: a file's text, or a built-in template's name
    /// (see ``TemplateChoice``).
    /// - Throws: ``UsageError`` for an unknown name, ``ChatTemplate/Error/failed(reason:)`` for
    ///   a file that cannot be read.
    static func templateSource(_ value: String) throws -> String {
        switch try TemplateChoice.resolve(value) {
        case .builtin(let name):
            return name
        case .file(let path):
            do {
                return try UserFile.text(at: path)
            } catch {
                throw ChatTemplate.Error.failed(reason: "cannot read \(path): \(error.reason)")
            }
        }
    }
}
