import Foundation
import LocalLLMKit

/// `llmkit run`: generate an answer to one prompt and stream it to stdout.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        usage: "usage: llmkit run [--model PATH] [--raw] [--system TEXT] [--max-tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S] [--threads N] [--context N] [--json] PROMPT",
        help: """
        Generate an answer to PROMPT and stream it to stdout.

        \(ModelOptions.help)
              --raw                feed PROMPT as plain text (no chat template); print only the generated text
              --system TEXT        system message (chat mode only)
          -n, --max-tokens N       most tokens to generate (default: until the context is full)
              --temperature T      sampling temperature; 0 = greedy (default: the model's, else 0.8)
              --top-k K            top-k sampling; 0 = off (default: 40)
              --top-p P            top-p (nucleus) sampling; 1 = off (default: 0.95)
              --min-p P            min-p sampling; 0 = off (default: 0.05)
              --repeat-penalty R   repetition penalty; 1 = off
              --presence-penalty R presence penalty; 0 = off
              --frequency-penalty R frequency penalty; 0 = off
              --seed S             random seed, for reproducible sampling
              --stop TEXT          stop before TEXT (repeatable)
              --json               print one JSON object at the end instead of streaming
              --stats              print timing figures to stderr at the end
          -h, --help               show this help

        PROMPT may be '-' (or left out with piped input) to read it from stdin.
        Without --raw the prompt goes through the model's chat template, or llama.cpp's
        built-in template for its architecture, or ChatML.
        """,
        valueOptions: ModelOptions.valueOptions.union([
            "--system", "--max-tokens", "--temperature", "--top-k", "--top-p", "--min-p", "--repeat-penalty",
            "--presence-penalty", "--frequency-penalty", "--seed", "--stop",
        ]),
        flagOptions: ModelOptions.flagOptions.union(["--raw", "--json", "--stats"]),
        repeatableOptions: ["--stop"],
        aliases: ModelOptions.aliases.merging(["-n": "--max-tokens", "-s": "--seed"]) { $1 },
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let prompt = try readPrompt(arguments)
        let options = try completionOptions(arguments)
        let raw = arguments.has("--raw")
        if raw && arguments.value("--system") != nil {
            throw UsageError(message: "--system needs chat mode; it cannot be combined with --raw")
        }
        let model = try await ModelOptions.load(arguments)
        let stream: CompletionStream
        if raw {
            stream = model.streamCompletion(prompt, options: options)
        } else {
            var messages: [ChatMessage] = []
            if let system = arguments.value("--system") { messages.append(.system(system)) }
            messages.append(.user(prompt))
            stream = model.streamChatCompletion(messages, options: options)
        }
        let json = arguments.has("--json")
        let result = try await InterruptHandler.shared.whileRunning(cancel: { stream.cancel() }) {
            for try await chunk in stream where !json {
                Console.out(chunk)
            }
            return try await stream.result
        }
        if json {
            try Console.printJSON(RunReport(result: result, model: model))
        } else if !raw && !result.text.hasSuffix("\n") {
            Console.out("\n")
        }
        if arguments.has("--stats") {
            Console.err(statisticsLine(result, model: model))
        }
        return InterruptHandler.shared.wasInterrupted ? .interrupted : .success
    }

    private static func readPrompt(_ arguments: ParsedArguments) throws -> String {
        if let prompt = arguments.positionals.first, prompt != "-" { return prompt }
        if arguments.positionals.first == "-" || !Console.inputIsTerminal {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return String(decoding: data, as: UTF8.self)
        }
        throw UsageError(message: "missing PROMPT")
    }

    static func completionOptions(_ arguments: ParsedArguments) throws -> CompletionOptions {
        var options = CompletionOptions()
        options.maximumTokens = try arguments.integer("--max-tokens", in: 1...Int.max)
        options.temperature = try arguments.number("--temperature")
        options.topK = try arguments.integer("--top-k", in: 0...Int.max)
        options.topP = try arguments.number("--top-p")
        options.minP = try arguments.number("--min-p")
        options.repetitionPenalty = try arguments.number("--repeat-penalty")
        options.presencePenalty = try arguments.number("--presence-penalty")
        options.frequencyPenalty = try arguments.number("--frequency-penalty")
        if let seed = try arguments.integer("--seed", in: 0...Int(UInt32.max - 1)) { options.seed = UInt32(seed) }
        options.stopSequences = arguments.allValues("--stop")
        do {
            try options.validate()
        } catch LLMKitError.invalidOption(let name, let reason) {
            throw UsageError(message: "invalid \(name): \(reason)")
        }
        return options
    }

    private static func statisticsLine(_ result: CompletionResult, model: LocalModel) -> String {
        let s = result.statistics
        return String(
            format: "\n[%@] prompt: %d tokens, %.1f t/s | generation: %d tokens, %.1f t/s | first token: %.0f ms | load: %.0f ms | stop: %@\n",
            model.url.lastPathComponent, s.promptTokens, s.promptTokensPerSecond, s.generatedTokens,
            s.generationTokensPerSecond, s.timeToFirstToken.milliseconds, model.loadDuration.milliseconds,
            result.stopReason.rawValue)
    }
}

/// The JSON object that `llmkit run --json` prints.
struct RunReport: Encodable {
    let text: String
    let stopReason: String
    let stopSequence: String?
    let promptTokens: Int
    let generatedTokens: Int
    let promptTokensPerSecond: Double
    let generationTokensPerSecond: Double
    let timeToFirstTokenMs: Double
    let loadTimeMs: Double
    let seed: UInt32
    let model: String

    init(result: CompletionResult, model: LocalModel) {
        text = result.text
        stopReason = result.stopReason.rawValue
        stopSequence = result.stopSequence
        promptTokens = result.statistics.promptTokens
        generatedTokens = result.statistics.generatedTokens
        promptTokensPerSecond = result.statistics.promptTokensPerSecond
        generationTokensPerSecond = result.statistics.generationTokensPerSecond
        timeToFirstTokenMs = result.statistics.timeToFirstToken.milliseconds
        loadTimeMs = model.loadDuration.milliseconds
        seed = result.seed
        self.model = model.url.path
    }
}
