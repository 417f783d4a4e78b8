import Foundation
import LocalLLMKit

/// `llmkit bench --parallel B --mixed`: B clients sending real completion requests through the
/// public API, as a server's users would: prompts of different lengths, clients arriving one
/// after another, each request with its own sampler (temperature, top-k/p, seed, some with a
/// repetition penalty). Each client sends its next request as soon as one ends, until the time
/// is up; then the requests in flight are cancelled.
///
/// Throughput is counted over the steady state: from the last client's arrival to the end. A
/// request's prompt tokens count at the moment its first token was sampled, and its generated
/// tokens are spread evenly from its first token to its last (each costs one decode step).
/// With `--step-times`, also where the steps' time went over the whole run.
enum MixedWorkload {
    struct Report: Encodable {
        let clients: Int
        let requests: Int
        let meanPromptTokens: Double
        let meanGeneratedTokens: Double
        /// The steady-state window.
        let seconds: Double
        /// Generated tokens in the window, per second.
        let generationTokensPerSecond: Double
        /// Evaluated prompt tokens plus generated tokens in the window, per second.
        let tokensPerSecond: Double
        /// Prompt tokens taken from the cache (prompts share at most their first words).
        let cachedPromptTokens: Int
    }

    /// One request's figures, with its timings from the start of the run.
    private struct Finished: Sendable {
        let evaluated: Int
        let cached: Int
        let generated: Int
        let firstToken: Double
        let lastToken: Double
        let completed: Bool

        /// How many of its generated tokens fall in `window`.
        func generatedTokens(in window: ClosedRange<Double>) -> Double {
            guard generated > 0 else { return 0 }
            guard generated > 1, lastToken > firstToken else { return window.contains(firstToken) ? Double(generated) : 0 }
            let overlap = min(lastToken, window.upperBound) - max(firstToken, window.lowerBound)
            return max(0, overlap) / (lastToken - firstToken) * Double(generated)
        }
    }

    static let arrivalInterval = 0.25

    static func run(_ arguments: ParsedArguments, clients: Int) async throws -> ExitCode {
        var configuration = try ModelOptions.configuration(arguments)
        configuration.serving.parallelSequences = clients
        configuration.context.batchSize = max(configuration.context.batchSize, clients)
        let duration = Double(try arguments.integer("--duration", in: 5...3600) ?? 40)
        if configuration.context.length == nil {
            // Room for the longest prompt and answer, and no more: llama.cpp places new cells after
            // the last ones used, so a larger cache spreads the sequences over more cells, and
            // every token attends over all of them.
            let vocabulary = try await LocalModel.load(from: try await ModelOptions.modelURL(arguments),
                                                       configuration: .init(vocabularyOnly: true))
            let longest = try (0..<clients).flatMap { client in
                try (0..<12).map { try vocabulary.tokenize(prompt(client: client, index: $0)).count }
            }.max() ?? 0
            configuration.context.length = longest + 110      // answers of up to 96 tokens, longer request numbers
        }
        let model = try await ModelOptions.load(arguments, configuration: configuration)
        _ = try await model.complete("Warm-up.", options: .init(maximumResponseTokens: 2))
        let measuringSteps = arguments.has("--step-times")
        if measuringSteps { try await model.measureSteps() }
        let start = ContinuousClock.now
        let finished = try await withThrowingTaskGroup(of: [Finished].self) { group in
            for client in 0..<clients {
                group.addTask {
                    try? await Task.sleep(for: .seconds(arrivalInterval * Double(client)))
                    var results: [Finished] = []
                    var index = 0
                    while !Task.isCancelled {
                        let submitted = (ContinuousClock.now - start).seconds
                        let response = try await model.complete(prompt(client: client, index: index),
                                                                options: options(client: client, index: index))
                        let statistics = response.statistics
                        let first = submitted + statistics.timeToFirstToken.seconds
                        results.append(Finished(evaluated: statistics.evaluatedPromptTokens, cached: statistics.cachedPromptTokens,
                                                generated: statistics.generatedTokens, firstToken: first,
                                                lastToken: first + statistics.generationDuration.seconds,
                                                completed: response.stopReason != .cancelled))
                        index += 1
                    }
                    return results
                }
            }
            try await Task.sleep(for: .seconds(duration))
            group.cancelAll()
            var all: [Finished] = []
            for try await results in group { all += results }
            return all
        }
        let stepTimes = measuringSteps ? await model.stopMeasuringSteps() : nil
        let window = arrivalInterval * Double(clients - 1)...duration
        let seconds = window.upperBound - window.lowerBound
        let generated = finished.map { $0.generatedTokens(in: window) }.reduce(0, +)
        let evaluated = finished.filter { window.contains($0.firstToken) }.map(\.evaluated).reduce(0, +)
        let completed = finished.filter(\.completed)
        let report = Report(clients: clients, requests: completed.count,
                            meanPromptTokens: Double(completed.map(\.evaluated).reduce(0, +)) / Double(max(completed.count, 1)),
                            meanGeneratedTokens: Double(completed.map(\.generated).reduce(0, +)) / Double(max(completed.count, 1)),
                            seconds: seconds, generationTokensPerSecond: generated / seconds,
                            tokensPerSecond: (Double(evaluated) + generated) / seconds,
                            cachedPromptTokens: finished.map(\.cached).reduce(0, +))
        if arguments.has("--json") {
            try Console.printJSON(report)
        } else {
            Console.out(String(format: "mixed workload: %d clients, %d requests completed; mean prompt %.0f, mean answer %.0f tokens\n"
                               + "steady state (%.1f s): generation %.2f t/s, prompt and generation %.2f t/s\n",
                               clients, completed.count, report.meanPromptTokens, report.meanGeneratedTokens, seconds,
                               report.generationTokensPerSecond, report.tokensPerSecond))
        }
        if let stepTimes {
            ParallelBenchmark.printStepTimes([(clients, stepTimes.generation, stepTimes.prompt)], jsonl: arguments.has("--json"))
        }
        return .success
    }

    /// A prompt of its own for every request (nothing shared to take from the cache), 20 to
    /// about 200 tokens long.
    static func prompt(client: Int, index: Int) -> String {
        let sentences = [
            "The harbour town wakes before dawn, when the fishing boats return with their catch.",
            "Engineers measured the bridge every spring to see how far the river had moved its banks.",
            "In the mountains the weather changes quickly, so hikers carry coats even in summer.",
            "The library kept its oldest maps in a cold room, away from light and damp.",
            "A good bread needs time more than skill: the dough rises slowly overnight.",
        ]
        let count = 1 + (client * 5 + index * 3) % 12
        let body = (0..<count).map { sentences[($0 + client + index) % sentences.count] }.joined(separator: " ")
        return "Note \(client)-\(index): \(body) Continue the story:"
    }

    /// Each request's own sampler: answers of 32 to 96 tokens, different temperatures and seeds.
    static func options(client: Int, index: Int) -> CompletionOptions {
        CompletionOptions(maximumResponseTokens: 32 + (client * 13 + index * 29) % 65, sampling: .init(
            temperature: [0.6, 0.8, 1.0][(client + index) % 3], topK: 40, topP: 0.95,
            repetitionPenalty: index % 2 == 0 ? 1.1 : nil, seed: UInt32(1000 * client + index)))
    }
}
