import Foundation
import LocalLLMKit

/// `llmkit run`: generate an answer to one prompt and stream it to stdout.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        usage: "usage: llmkit run [-m MODEL] [-n N] [--temperature T] [-sys TEXT] [options] PROMPT | -p PROMPT | -f FILE"
            + "   (or llmkit run MODEL PROMPT)",
        help: """
        Generate an answer to PROMPT and stream it to stdout. `llmkit run MODEL PROMPT` (Ollama's
        order) works too, when MODEL is a model that --model finds.

        \(ModelOptions.modelHelp)
          PROMPT                   the prompt; '-' (or nothing, with piped input) reads stdin
        \(Flag.help(prompt))
        \(MediaFlags.help)
        \(GenerationFlags.everydayHelp)
          -h, --help               show this help

        output:
        \(Flag.help(output))

        \(GenerationFlags.headedHelp)

        With piped input and no PROMPT, stdin is the prompt; an empty stdin is a usage error.
        With --schema, --json-schema or --grammar, an answer cut off by --max-tokens exits 1
        ("incomplete JSON: token limit reached"), never printing invalid JSON as a success.
        llama.cpp's spellings work too: -p, -f, -n/--n-predict, --temp, -r/--reverse-prompt,
        -sys/--system-prompt, -j/--json-schema, --grammar-file, --ctx-size, --n-gpu-layers.
        Without --raw the prompt goes through the chat template: --chat-template, else the
        model's own, else llama.cpp's built-in template for its architecture, else ChatML.
        """,
        flags: ModelOptions.all + ModelOptions.promptCaching + prompt + MediaFlags.all + GenerationFlags.all + SpeculationFlags.all + output,
        maximumPositionals: 2
    )

    /// Where the prompt comes from, besides the PROMPT argument.
    static let prompt: [Flag] = [
        Flag("--prompt", "-p", value: "TEXT", help: "the prompt, instead of the PROMPT argument"),
        Flag("--prompt-file", "-f", "--file", value: "FILE", help: "read the prompt from FILE ('-' reads stdin)"),
    ]

    /// What is printed, and how.
    static let output: [Flag] = [
        Flag("--raw", help: "feed PROMPT as plain text (no chat template); print only the generated text"),
        Flag("--json", help: """
            print one JSON object at the end instead of streaming; it always
            has the same keys, null when empty; also --format json
            """),
        Flag("--stream-json", help: """
            stream one compact JSON object per line: {"type": "text"|"thinking"|
            "snapshot"|"tool_call"|"tool_result", …}, then the --json report
            with "type": "done"
            """),
        Flag("--stats", help: "print timing figures to stderr at the end"),
    ]

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        var arguments = arguments
        if arguments.positionals.count == 2 { try await takeModelArgument(&arguments) }
        let prompt = try readPrompt(arguments)
        let request = try GenerationFlags.request(arguments)
        let raw = arguments.has("--raw")
        let json = arguments.has("--json"), streamsJSON = arguments.has("--stream-json")
        if json && streamsJSON {
            throw UsageError(message: "--json and --stream-json cannot be combined")
        }
        if raw, let chatFlag = GenerationFlags.chatOnlyFlag(in: arguments) {
            throw UsageError(message: "\(chatFlag) needs chat mode; it cannot be combined with --raw")
        }
        if raw && !arguments.allValues("--image").isEmpty {
            throw UsageError(message: "--image needs chat mode; it cannot be combined with --raw")
        }
        let attachments = try MediaFlags.attachments(arguments)
        // One completion, or one chat round without tools, continues no earlier request.
        let model = try await ModelOptions.load(arguments, reusesPrefixes: !raw && arguments.value("--tools") != nil, cachesPrompts: true)
        var report: RunReport
        if raw {
            report = try await complete(prompt, model: model, request: request, json: json, streamsJSON: streamsJSON)
        } else {
            let conversation = try await GenerationFlags.conversation(arguments, model: model)
            report = try await respond(prompt, attachments: attachments, in: conversation, request: request, arguments: arguments)
        }
        if json {
            try Console.printJSON(report)
        } else if streamsJSON {
            report.type = "done"
            try Console.printJSONLine(report)
        }
        if arguments.has("--stats") {
            Console.err(report.statisticsLine)
        }
        await model.flushPromptCache()
        if InterruptHandler.shared.wasInterrupted { return .interrupted }
        if raw && report.text.isEmpty {
            // Never a silent success with no output: say why nothing came.
            Console.message("llmkit run: note: the model generated nothing (stop: \(report.stopReason) after "
                            + "\(report.generatedTokens) tokens); --raw continues the text as it is, without the chat template")
        }
        if request.format != .text, report.stopReason == StopReason.maximumTokens.rawValue {
            let kind: String
            if case .grammar = request.format { kind = "output" } else { kind = "JSON" }
            Console.message("llmkit run: incomplete \(kind): token limit reached (raise --max-tokens)")
            return .failure
        }
        return .success
    }

    /// Plain-text completion: prints only the generated text.
    private static func complete(_ prompt: String, model: LocalModel, request: GenerationFlags.Request,
                                 json: Bool, streamsJSON: Bool) async throws -> RunReport {
        let stream = model.streamCompletion(prompt, format: request.format, options: request.options)
        let result = try await InterruptHandler.shared.whileRunning(cancel: { stream.cancel() }) {
            for try await chunk in stream where !json {
                if streamsJSON { try StreamedEvent(text: chunk).print() } else { Console.answer(chunk) }
            }
            return try await stream.result
        }
        return RunReport(text: result.text, thinking: nil, stopReason: result.stopReason, stopSequence: result.stopSequence,
                         seed: result.seed, statistics: result.statistics, model: model, toolCalls: [])
    }

    /// One chat turn: the answer on stdout (ending with a newline), thinking on stderr on request.
    private static func respond(_ prompt: String, attachments: [MediaAttachment], in conversation: Conversation,
                                request: GenerationFlags.Request, arguments: ParsedArguments) async throws -> RunReport {
        let response = try await ChatPrinter(json: arguments.has("--json"), showThinking: arguments.has("--show-thinking"),
                                             streamsJSON: arguments.has("--stream-json"))
            .stream(conversation.streamResponse(to: prompt, attachments: attachments, format: request.format, options: request.options,
                                               thinking: request.thinking, toolPolicy: request.toolPolicy))
        return RunReport(text: response.text, thinking: response.thinking, stopReason: response.stopReason,
                         stopSequence: response.stopSequence, seed: response.seed, statistics: response.statistics,
                         model: conversation.model, toolCalls: response.toolInvocations.map(ToolCallReport.init))
    }

    /// `llmkit run MODEL PROMPT`, Ollama's order: the first of two arguments becomes `--model`
    /// when it names a model that `--model` finds (a library id or name, a catalog id, a cache
    /// model, or a GGUF file that exists).
    /// - Throws: ``UsageError`` (`did you mean -m MODEL?`) when it names none, or when `--model`
    ///   is given too; the runtime error of a catalog model that is not downloaded.
    private static func takeModelArgument(_ arguments: inout ParsedArguments) async throws {
        let name = arguments.positionals[0]
        guard arguments.value("--model") == nil else {
            throw UsageError(message: "unexpected argument '\(TerminalText.escaped(arguments.positionals[1]))': --model names the "
                             + "model, and run takes one PROMPT (quote a prompt of several words)")
        }
        let problem = " and run takes one PROMPT (quote a prompt of several words); did you mean -m MODEL?"
        do {
            if case .file(let url) = try await ModelOptions.target(name), !FileManager.default.fileExists(atPath: url.path) {
                throw UsageError(message: "'\(TerminalText.escaped(name))' is no model file (it does not exist)," + problem)
            }
        } catch let error as ModelNameError {
            let nearest = error.nearest.isEmpty ? "" : " (nearest: \(error.nearest.joined(separator: ", ")))"
            throw UsageError(message: "'\(TerminalText.escaped(name))' is no model that --model finds\(nearest)," + problem)
        }
        arguments.moveFirstPositional(to: "--model")
    }

    /// The prompt: PROMPT, `--prompt`, `--prompt-file` (at most one of them), else stdin.
    private static func readPrompt(_ arguments: ParsedArguments) throws -> String {
        let sources = [arguments.positionals.isEmpty ? nil : "PROMPT", arguments.value("--prompt").map { _ in "--prompt" },
                       arguments.value("--prompt-file").map { _ in "--prompt-file" }].compactMap { $0 }
        if sources.count > 1 {
            throw UsageError(message: "give the prompt once: \(sources.joined(separator: " and ")) cannot be combined")
        }
        if let prompt = arguments.value("--prompt") { return prompt }
        if let path = arguments.value("--prompt-file"), path != "-" {
            return try GenerationFlags.readFile(path, option: "--prompt-file")
        }
        if let prompt = arguments.positionals.first, prompt != "-" { return prompt }
        let asked = arguments.positionals.first == "-" || arguments.value("--prompt-file") == "-"
        if asked || !Console.inputIsTerminal {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            // Nothing asked for stdin, and it is empty: the prompt is missing, as on a terminal.
            if !asked && data.isEmpty {
                throw UsageError(message: "missing PROMPT: standard input is empty (give PROMPT, -p TEXT or -f FILE)")
            }
            return String(decoding: data, as: UTF8.self)
        }
        throw UsageError(message: "missing PROMPT")
    }
}

/// The JSON object that `llmkit run --json` prints: always the same keys, null when empty.
struct RunReport: Encodable {
    /// `"done"` on the last line of `--stream-json`; absent from `--json`.
    var type: String?
    let text: String
    let thinking: String?
    let stopReason: String
    let stopSequence: String?
    let promptTokens: Int
    let cachedPromptTokens: Int
    let generatedTokens: Int
    let thinkingTokens: Int
    /// Tokens drafted by speculation, and those of them the model agreed with.
    let draftedTokens: Int
    let acceptedDraftTokens: Int
    /// Tokens drafted from the output grammar, and those of them the model agreed with (forced).
    let grammarDraftedTokens: Int
    let forcedTokens: Int
    let promptTokensPerSecond: Double
    let generationTokensPerSecond: Double
    let timeToFirstTokenMs: Double
    /// Images the projector encoded, and how long that took (part of the time to the first token).
    let encodedMedia: Int
    let mediaEncodingMs: Double
    /// From the request's start on the model (its prompt tokenized) to its first token: the
    /// prompt's decodes, and the encoding of its images.
    let promptEvalMs: Double
    let loadTimeMs: Double
    let seed: UInt32
    let model: String
    let toolCalls: [ToolCallReport]?

    init(text: String, thinking: String?, stopReason: StopReason, stopSequence: String?, seed: UInt32,
         statistics: GenerationStatistics, model: LocalModel, toolCalls: [ToolCallReport]) {
        self.text = text
        self.thinking = thinking
        self.stopReason = stopReason.rawValue
        self.stopSequence = stopSequence
        promptTokens = statistics.promptTokens
        cachedPromptTokens = statistics.cachedPromptTokens
        generatedTokens = statistics.generatedTokens
        thinkingTokens = statistics.thinkingTokens
        draftedTokens = statistics.draftedTokens
        acceptedDraftTokens = statistics.acceptedDraftTokens
        grammarDraftedTokens = statistics.grammarDraftedTokens
        forcedTokens = statistics.forcedTokens
        promptTokensPerSecond = statistics.promptTokensPerSecond
        generationTokensPerSecond = statistics.generationTokensPerSecond
        timeToFirstTokenMs = statistics.timeToFirstToken.milliseconds
        encodedMedia = statistics.encodedMedia
        mediaEncodingMs = statistics.mediaEncodingDuration.milliseconds
        promptEvalMs = statistics.promptDuration.milliseconds
        loadTimeMs = model.loadDuration.milliseconds
        self.seed = seed
        self.model = model.url.path
        self.toolCalls = toolCalls.isEmpty ? nil : toolCalls
    }

    enum CodingKeys: String, CodingKey {
        case type, text, thinking, stopReason, stopSequence, promptTokens, cachedPromptTokens, generatedTokens
        case thinkingTokens, draftedTokens, acceptedDraftTokens, grammarDraftedTokens, forcedTokens, promptTokensPerSecond, generationTokensPerSecond, timeToFirstTokenMs, loadTimeMs
        case encodedMedia, mediaEncodingMs, promptEvalMs, seed, model, toolCalls
    }

    /// Every key, with null for what is empty (the synthesized encoder would leave them out).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encode(text, forKey: .text)
        try container.encode(thinking.flatMap { $0.isEmpty ? nil : $0 }, forKey: .thinking)
        try container.encode(stopReason, forKey: .stopReason)
        try container.encode(stopSequence, forKey: .stopSequence)
        try container.encode(promptTokens, forKey: .promptTokens)
        try container.encode(cachedPromptTokens, forKey: .cachedPromptTokens)
        try container.encode(generatedTokens, forKey: .generatedTokens)
        try container.encode(thinkingTokens, forKey: .thinkingTokens)
        try container.encode(draftedTokens, forKey: .draftedTokens)
        try container.encode(acceptedDraftTokens, forKey: .acceptedDraftTokens)
        try container.encode(grammarDraftedTokens, forKey: .grammarDraftedTokens)
        try container.encode(forcedTokens, forKey: .forcedTokens)
        try container.encode(promptTokensPerSecond, forKey: .promptTokensPerSecond)
        try container.encode(generationTokensPerSecond, forKey: .generationTokensPerSecond)
        try container.encode(timeToFirstTokenMs, forKey: .timeToFirstTokenMs)
        try container.encode(loadTimeMs, forKey: .loadTimeMs)
        try container.encode(encodedMedia, forKey: .encodedMedia)
        try container.encode(mediaEncodingMs, forKey: .mediaEncodingMs)
        try container.encode(promptEvalMs, forKey: .promptEvalMs)
        try container.encode(seed, forKey: .seed)
        try container.encode(model, forKey: .model)
        try container.encode(toolCalls, forKey: .toolCalls)
    }

    /// The line `--stats` prints to stderr.
    var statisticsLine: String {
        let drafts = draftedTokens == 0 ? "" : String(format: " | drafts: %d of %d tokens accepted (%.0f%%)",
                                                      acceptedDraftTokens, draftedTokens,
                                                      100 * Double(acceptedDraftTokens) / Double(draftedTokens))
        let forced = grammarDraftedTokens == 0 ? "" : String(format: " | grammar drafts: %d of %d tokens forced",
                                                              forcedTokens, grammarDraftedTokens)
        let media = encodedMedia == 0 ? "" : String(format: " | images: %d encoded in %.0f ms", encodedMedia, mediaEncodingMs)
        return String(format: "\n[%@] prompt: %d tokens (%d cached), %.1f t/s%@ | generation: %d tokens, %.1f t/s%@ | first token: %.0f ms | load: %.0f ms | stop: %@\n",
                      URL(filePath: model).lastPathComponent, promptTokens, cachedPromptTokens, promptTokensPerSecond, media,
                      generatedTokens, generationTokensPerSecond, drafts + forced, timeToFirstTokenMs, loadTimeMs, stopReason)
    }
}
