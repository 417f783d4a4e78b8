import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Parallel sequences and continuous batching")
struct BatchingTests {
    static let prompts = [
        "The capital of France is",
        "Once upon a time, in a small village,",
        "def fibonacci(n):",
        "The three primary colours are",
        "Water boils at a temperature of",
        "My favourite recipe for bread starts with",
        "The quick brown fox",
        "In 1969, astronauts",
    ]
    static let options = CompletionOptions.greedy(maximumResponseTokens: 24)

    static func load(sequences: Int, queue: Int = 64,
                     layout: LocalModel.Configuration.CacheLayout = .perSequence) async throws -> LocalModel {
        try await TestModel.load(.init(contextLength: 512, parallelSequences: sequences, cacheLayout: layout,
                                       maximumQueuedRequests: queue))
    }

    /// Each prompt run alone, on a model of its own (so that nothing is reused from the cache).
    static func aloneTexts() async throws -> [[Int32]] {
        var tokens: [[Int32]] = []
        for prompt in prompts {
            let model = try await load(sequences: 8)
            tokens.append(try await model.complete(prompt, options: options).tokens)
        }
        return tokens
    }

    /// Checks that a batched run agrees with the same prompt run alone: token for token, or, where
    /// they part, on a near tie. CPU kernels accumulate differently for different batch shapes (one
    /// row or several, a prompt of 6 tokens or 8 prompts in one batch of 60), so the logits differ
    /// in their last bits, and a greedy choice between two almost equal tokens can flip. From then on
    /// the texts differ legitimately. At the first differing step, both tokens' logits after the
    /// common prefix must be within `tie` of each other, and one of them must be the top token.
    /// (On AVX2-only CPUs such as AMD EPYC parts, differences up to about 0.3 were seen; a leak
    /// between sequences gives unrelated tokens, whose logits differ by whole units.)
    /// - Returns: how many tokens agree.
    static func expectAgreement(_ batched: [Int32], alone: [Int32], prompt: String, model: LocalModel,
                                tie: Float = 0.5) async throws -> Int {
        try await expectAgreement(batched, alone: alone, promptTokens: try model.tokenize(prompt), label: prompt,
                                  model: model, tie: tie)
    }

    /// ``expectAgreement(_:alone:prompt:model:tie:)`` after a prompt given as tokens.
    static func expectAgreement(_ batched: [Int32], alone: [Int32], promptTokens: [Int32], label: String,
                                model: LocalModel, tie: Float = 0.5) async throws -> Int {
        let prompt = label
        let common = zip(batched, alone).prefix { $0 == $1 }.count
        guard common < min(batched.count, alone.count) else {
            #expect(batched == alone)
            return common
        }
        let prefix = promptTokens + alone.prefix(common)
        let logits = try await model.logits(after: prefix)
        let (a, b) = (logits[Int(alone[common])], logits[Int(batched[common])])
        let top = logits.max() ?? 0
        print("prompt \"\(prompt)\": parted after \(common) tokens; logits \(a) and \(b) (difference \(abs(a - b)))")
        #expect(abs(a - b) < tie, "prompt \"\(prompt)\" parted after \(common) tokens on logits \(a) and \(b), not a near tie")
        #expect(max(a, b) >= top - tie, "neither token was the likeliest (\(a), \(b), top \(top))")
        return common
    }

    @Test("8 concurrent requests agree with each run alone, up to near ties that batch shapes can flip")
    func concurrentEqualsAlone() async throws {
        let alone = try await Self.aloneTexts()
        let model = try await Self.load(sequences: 8)
        let together = try await withThrowingTaskGroup(of: (Int, ModelResponse<String>).self) { group in
            for (index, prompt) in Self.prompts.enumerated() {
                group.addTask { (index, try await model.complete(prompt, options: Self.options)) }
            }
            var results = [ModelResponse<String>?](repeating: nil, count: Self.prompts.count)
            for try await (index, response) in group { results[index] = response }
            return results.compactMap { $0 }
        }
        #expect(await model.sharedContextCount == 1)
        var agreeing = 0
        for (index, response) in together.enumerated() {
            #expect(response.tokens.count == Self.options.maximumResponseTokens)
            agreeing += try await Self.expectAgreement(response.tokens, alone: alone[index], prompt: Self.prompts[index], model: model)
        }
        let total = alone.map(\.count).reduce(0, +)
        print("batched and alone agree on \(agreeing) of \(total) greedy tokens (8 prompts, 24 tokens each)")
        #expect(agreeing * 2 > total)
    }

    @Test("requests of one prompt in the same batch agree: no sequence leaks into another")
    func identicalRows() async throws {
        let model = try await Self.load(sequences: 8)
        let together = try await model.generateTogether(Array(repeating: GenerationPlan(
            promptTokens: try model.tokenize(Self.prompts[1]), options: Self.options), count: 8))
        #expect(together[0].tokens.count == 24)
        // On some CPUs (AVX2 without AVX-512) the kernels accumulate a batch's rows in different
        // orders, so identical rows can part on a near tie; a leak would not be a near tie.
        let distinct = Set(together.map(\.tokens))
        print("8 identical requests in one batch gave \(distinct.count) distinct outputs")
        for row in together.dropFirst() {
            _ = try await Self.expectAgreement(row.tokens, alone: together[0].tokens, prompt: Self.prompts[1], model: model)
        }
    }

    @Test("cancelling one of 8 streams mid-way leaves the other 7 running to their end, agreeing with their runs alone")
    func cancelOneOfEight() async throws {
        let alone = try await Self.aloneTexts()
        let model = try await Self.load(sequences: 8)
        let cancelled = 3
        let streams = Self.prompts.map { model.streamCompletion($0, options: Self.options) }
        let results = try await withThrowingTaskGroup(of: (Int, ModelResponse<String>).self) { group in
            for (index, stream) in streams.enumerated() {
                group.addTask {
                    var chunks = 0
                    for try await _ in stream {
                        chunks += 1
                        if index == cancelled && chunks == 2 { break }      // dropping the iterator cancels
                    }
                    return (index, try await stream.result)
                }
            }
            var results = [ModelResponse<String>?](repeating: nil, count: streams.count)
            for try await (index, response) in group { results[index] = response }
            return results.compactMap { $0 }
        }
        #expect(results[cancelled].stopReason == .cancelled)
        #expect(results[cancelled].tokens.count < alone[cancelled].count)
        for index in results.indices where index != cancelled {
            #expect(results[index].stopReason == .maximumTokens)
            #expect(results[index].tokens.count == Self.options.maximumResponseTokens)
            _ = try await Self.expectAgreement(results[index].tokens, alone: alone[index], prompt: Self.prompts[index], model: model)
        }
        // The freed sequence serves a new request at once.
        let again = try await model.complete(Self.prompts[cancelled], options: Self.options)
        _ = try await Self.expectAgreement(again.tokens, alone: alone[cancelled], prompt: Self.prompts[cancelled], model: model)
    }

    @Test("past the queue's length a request fails with the typed busy error; the queue drains in order")
    func queueOverflow() async throws {
        let model = try await TestModel.load(.init(contextLength: 1024, parallelSequences: 1, maximumQueuedRequests: 1))
        let running = model.streamCompletion(CancellationTests.prompt, options: CancellationTests.endless)
        var iterator = running.makeAsyncIterator()
        _ = try await iterator.next()                       // it holds the only sequence
        let queued = model.streamCompletion(Self.prompts[0], options: Self.options)
        let queuedResult = Task { try await queued.result }
        while await model.waitingRequestCount < 1 { try await Task.sleep(for: .milliseconds(10)) }
        await #expect(throws: LocalModel.Error.busy(queuedRequests: 1)) {
            try await model.complete(Self.prompts[1], options: Self.options)
        }
        #expect(LocalModel.Error.busy(queuedRequests: 1).localizedDescription.contains("1 requests are already waiting"))
        running.cancel()
        #expect(try await running.result.stopReason == .cancelled)
        let served = try await queuedResult.value
        #expect(served.stopReason == .maximumTokens)
        #expect(served.tokens.count == 24)
    }

    @Test("a shared system prompt is evaluated once across 4 conversations",
          arguments: LocalModel.Configuration.CacheLayout.allCases)
    func sharedSystemPrompt(layout: LocalModel.Configuration.CacheLayout) async throws {
        let model = try await Self.load(sequences: 4, layout: layout)
        let instructions = "You are a careful assistant for a gardening shop. "
            + String(repeating: "Answer politely, mention the opening hours (9 to 5), and keep answers short. ", count: 6)
        let conversations = try (0..<4).map { _ in try Conversation(model: model, instructions: instructions) }
        let first = try await conversations[0].respond(to: "Do you sell tomato seeds?", options: Self.options)
        #expect(first.statistics.cachedPromptTokens == 0)
        let others = try await withThrowingTaskGroup(of: ModelResponse<String>.self) { group in
            for (index, conversation) in conversations.dropFirst().enumerated() {
                group.addTask { try await conversation.respond(to: "Question \(index): when do you open?", options: Self.options) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // The system part of the prompt (everything before the user's words) is about 100 tokens.
        let system = try model.tokenize(instructions, addingBeginningOfSequence: false).count
        for response in others {
            #expect(response.statistics.cachedPromptTokens >= system,
                    "only \(response.statistics.cachedPromptTokens) of \(response.statistics.promptTokens) prompt tokens came from the cache")
            #expect(response.statistics.evaluatedPromptTokens < response.statistics.promptTokens - system)
        }
        #expect(await model.sharedContextCount == 1)
    }

    @Test("16 conversations share the model's sequences: one context, no memory of their own")
    func sixteenConversations() async throws {
        let model = try await Self.load(sequences: 2)
        _ = try await model.complete("Warm-up.", options: .greedy(maximumResponseTokens: 2))
        let before = try #require(ProcessStatus.residentKiB)
        let conversations = try (0..<16).map { try Conversation(model: model, instructions: "Conversation \($0). Be brief.") }
        let replies = try await withThrowingTaskGroup(of: ModelResponse<String>.self) { group in
            for (index, conversation) in conversations.enumerated() {
                group.addTask { try await conversation.respond(to: "Say hello to number \(index).", options: Self.options) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.count == 16)
        #expect(replies.allSatisfy { $0.stopReason == .maximumTokens || $0.stopReason == .endOfText })
        let after = try #require(ProcessStatus.residentKiB)
        #expect(await model.sharedContextCount == 1)
        // One context of 512 tokens of this model's KV cache is about 9 MiB (18 layers × 1 KiB a
        // token); 16 contexts, as before, would add about 150 MiB.
        #expect(after - before < 40 * 1024, "resident memory grew by \(after - before) KiB")
    }

    @Test("sampling over the likeliest candidates (or the arg-max, greedy) draws exactly what the whole vocabulary draws")
    func prefilteredSampling() async throws {
        let model = try await Self.load(sequences: 1)
        let tokens = try model.tokenize("The garden in spring")
        let samplings = SamplingCases.all
        for sampling in samplings {
            for seed in 0..<4 {
                var options = CompletionOptions(maximumResponseTokens: 32, sampling: sampling)
                options.sampling.seed = (sampling.seed ?? 0) * 100 + UInt32(seed)
                options.sampling = options.sampling.filling(from: .init(recommendedBy: model.file.recommendedSampling))
                var plan = GenerationPlan(promptTokens: tokens, options: options)
                let fast = try await model.generate(GenerationRequest(plan: plan, contextLimit: 512, cancellation: .init()) { _ in })
                plan.samplesExhaustively = true
                let full = try await model.generate(GenerationRequest(plan: plan, contextLimit: 512, cancellation: .init()) { _ in })
                #expect(fast.tokens == full.tokens, "\(sampling), seed \(options.sampling.seed ?? 0)")
            }
        }
        // The first greedy setting takes the arg-max path; the other two cannot.
        let greedy = samplings.suffix(3).map { try? Sampler(model: model.handle, sampling: $0.filling(from: .init(recommendedBy: model.file.recommendedSampling))).isGreedy }
        #expect(greedy == [true, false, false])
    }

    @Test("impossible parallel settings are typed errors that name the setting")
    func badSettings() async throws {
        func rejects(_ configuration: LocalModel.Configuration, _ name: String) async {
            await #expect {
                _ = try await TestModel.load(configuration)
            } throws: { error in
                guard case LocalModel.Error.invalidOption(let option, _) = error else { return false }
                return option == name
            }
        }
        await rejects(.init(parallelSequences: 0), "parallelSequences")
        await rejects(.init(parallelSequences: 257), "parallelSequences")
        await rejects(.init(batchSize: 4, microBatchSize: 4, parallelSequences: 8), "batchSize")
        await rejects(.init(contextLength: 1 << 20, parallelSequences: 32), "contextLength")
        await rejects(.init(maximumQueuedRequests: -1), "maximumQueuedRequests")
        let model = try await Self.load(sequences: 2)
        #expect {
            _ = try Conversation(model: model, configuration: .init(contextLength: 1024))
        } throws: { error in
            guard case Conversation.Error.invalidConfiguration(let name, let reason) = error else { return false }
            return name == "contextLength" && reason.contains("512")
        }
    }
}
