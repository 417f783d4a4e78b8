import Foundation
import LocalLLMKit

/// `llmkit bench --parse`: what turning a streamed answer into events costs, as a share of the
/// generation time, when every chunk is parsed (the former way) and when only chunks that could
/// change the split are (the current way). Same model, template, prompt, seed and length, alternated.
enum ParseBenchmark {
    /// One generation.
    struct Run: Encodable {
        let parsing: String
        let run: Int
        let generatedTokens: Int
        let chunks: Int
        let parses: Int
        let parseMilliseconds: Double
        let generationMilliseconds: Double
        /// Parse time over generation time.
        let parseShare: Double
    }

    /// Every run, and the share of each way over all its runs.
    struct Report: Encodable {
        let template: String
        let runs: [Run]
        let everyChunkShare: Double
        let incrementalShare: Double
        let thinkingCharacters: Int
        let answerCharacters: Int
        /// Whether every run streamed the same events and the same response text.
        let sameEvents: Bool
    }

    /// The template used when none is given: Qwen 3.5's opens a thinking block in the prompt.
    static var defaultTemplate: String {
        TemplateChoice.directory.appending(path: "Qwen3.5-4B.jinja").path
    }

    static func run(model: LocalModel, templatePath: String?, repetitions: Int, maximumTokens: Int, json: Bool) async throws -> ExitCode {
        let path = templatePath ?? defaultTemplate
        let source = try templatePath.map(GenerationFlags.templateSource)
            ?? GenerationFlags.readFile(defaultTemplate, option: "--chat-template")
        // Every answer has the full length: end-of-generation tokens are banned, and the thinking
        // block is closed halfway by the budget.
        let endTokens = (0..<Int32(model.vocabularySize)).filter(model.isEndOfGeneration)
        let options = CompletionOptions(maximumResponseTokens: maximumTokens, sampling: .init(
            temperature: 0.7, repetitionPenalty: 1.1, seed: 42,
            logitBias: Dictionary(uniqueKeysWithValues: endTokens.map { ($0, -Double.infinity) })))
        let thinking = Conversation.Thinking.enabled(budget: maximumTokens / 2)
        var runs: [Run] = []
        var outputs: [([Conversation.Event], String)] = []
        var last: ModelResponse<String>?
        for index in 0..<repetitions {
            for parsing in index % 2 == 0 ? [ReplyStream.Parsing.everyChunk, .incremental] : [.incremental, .everyChunk] {
                let conversation = try Conversation(model: model, instructions: "You are a helpful gardening assistant.",
                                                    configuration: .init(chatTemplate: source))
                let probe = ReplyParsingProbe(parsing: parsing)
                let (events, response) = try await ReplyParsingProbe.$current.withValue(probe) {
                    try await stream(conversation, options: options, thinking: thinking)
                }
                outputs.append((events, response.rawText))
                last = response
                let measured = probe.measurement
                let generation = response.statistics.generationDuration.milliseconds
                runs.append(Run(parsing: parsing == .everyChunk ? "every chunk" : "incremental", run: index + 1,
                                generatedTokens: response.statistics.generatedTokens, chunks: measured.chunks,
                                parses: measured.parses, parseMilliseconds: measured.duration.milliseconds,
                                generationMilliseconds: generation,
                                parseShare: measured.duration.milliseconds / max(generation, 1e-9)))
            }
        }
        func share(_ parsing: String) -> Double {
            let selected = runs.filter { $0.parsing == parsing }
            return selected.map(\.parseMilliseconds).reduce(0, +) / max(selected.map(\.generationMilliseconds).reduce(0, +), 1e-9)
        }
        let same = outputs.allSatisfy { $0.0 == outputs[0].0 && $0.1 == outputs[0].1 }
        let report = Report(template: URL(filePath: path).lastPathComponent, runs: runs, everyChunkShare: share("every chunk"),
                            incrementalShare: share("incremental"), thinkingCharacters: last?.thinking.count ?? 0,
                            answerCharacters: last?.text.count ?? 0, sameEvents: same)
        if json {
            try Console.printJSON(report)
        } else {
            print(report)
        }
        return same ? .success : .failure
    }

    /// Streams one turn: its events (without `.done`) and its response.
    private static func stream(_ conversation: Conversation, options: CompletionOptions,
                               thinking: Conversation.Thinking) async throws -> ([Conversation.Event], ModelResponse<String>) {
        var events: [Conversation.Event] = []
        for try await event in conversation.streamResponse(to: "How should we plan a small vegetable garden behind the house?",
                                                           options: options, thinking: thinking) {
            if case .done(let response) = event { return (events, response) }
            events.append(event)
        }
        throw CancellationError()    // the stream ends without `.done` only when cancelled
    }

    private static func print(_ report: Report) {
        let table = BenchmarkTable([.init(title: "run"), .init(title: "parsing", alignment: .left)]
            + ["tokens", "chunks", "parses", "parse ms", "generation ms", "parse / generation"].map { BenchmarkTable.Column(title: $0) })
        Console.out(table.header)
        for run in report.runs {
            Console.out(table.row(["\(run.run)", run.parsing, "\(run.generatedTokens)", "\(run.chunks)", "\(run.parses)",
                                   BenchmarkTable.number(run.parseMilliseconds, 1), BenchmarkTable.number(run.generationMilliseconds, 1),
                                   BenchmarkTable.number(run.parseShare * 100, 2) + " %"]))
        }
        Console.out(String(format: "\nparse time / generation time (%@, %d characters of thinking, %d of answer): every chunk %.2f %%, incremental %.2f %%; same events: %@\n",
                           report.template, report.thinkingCharacters, report.answerCharacters,
                           report.everyChunkShare * 100, report.incrementalShare * 100, report.sameEvents ? "yes" : "NO"))
    }
}
