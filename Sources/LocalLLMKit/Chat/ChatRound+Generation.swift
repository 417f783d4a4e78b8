extension ChatRound {
    /// Renders the turn so far after `history` and generates once, streaming thinking and
    /// text events.
    /// - Parameters:
    ///   - round: the round's number in its turn (from 1), which its tool calls carry.
    ///   - firstCallNumber: the number of the round's first tool call: calls are `call-N`, counted
    ///     by whoever keeps the turns (the result's calls continue from here).
    /// - Returns: the round, with the tokens it left in the model's cache.
    func run(_ pending: [ChatMessage], after history: [ChatMessage], request: TurnRequest,
             toolChoice: Conversation.ToolChoice, round: Int, firstCallNumber: Int = 1,
             flag: CancellationFlag, emit: @escaping @Sendable (Conversation.Event) -> Void) async throws -> RoundResult {
        let plan = try await plan(pending, after: history, request: request, toolChoice: toolChoice)
        guard plan.fits else {
            throw LocalModel.Error.promptTooLong(tokens: plan.tokens.count, limit: contextLength - plan.reservedTokens)
        }
        let rendered = plan.rendered
        // Special tokens whose text the output parser needs (`<tool_call>`), by id: they are
        // rendered as text, and they can trigger the tool-call grammar.
        let preserved = Set(rendered.preservedTokens.compactMap { text -> Int32? in
            let tokens = (try? model.tokenizer.tokenize(text, addSpecial: false, parseSpecial: true)) ?? []
            return tokens.count == 1 ? tokens[0] : nil
        })
        let format = try await request.format.preparedConstraint(for: model.handle)
        let constraint: SamplingConstraint
        if let format {
            constraint = .grammar(format.grammar)
        } else if toolChoice != .none, !rendered.toolCallGrammar.isEmpty {
            constraint = .continuation(rendered.toolCallGrammar, triggers: rendered.toolCallTriggers, preservedTokens: preserved)
        } else {
            constraint = .none
        }
        let thinking = ThinkingBudget(generationPrompt: rendered.generationPrompt, tokens: request.thinking.budget,
                                      startTag: rendered.thinkingStartTag, endTags: rendered.thinkingEndTags,
                                      message: request.thinking.budgetMessage)
        var generation = GenerationPlan(promptTokens: plan.tokens, options: request.options, constraint: constraint,
                                        thinking: thinking, additionalStopSequences: rendered.additionalStopSequences,
                                        preservedTokens: preserved, reusesCache: reusesPromptCache)
        generation.media = plan.media
        let probe = ReplyParsingProbe.current
        let parsing = RoundParsing(rendered: rendered, probe: probe)
        var generationRequest = GenerationRequest(plan: generation, contextLimit: contextLength, cancellation: flag) { chunk in
            parsing.append(chunk).forEach(emit)
        }
        if request.options.logProbabilityAlternatives != nil {
            generationRequest.observeLogProbability = { emit(.logProbability($0)) }
        }
        let result = try await model.generate(generationRequest)
        if result.stopReason == .endOfText, let check = format?.check { try check.verify(result.text) }
        try parsing.finish(isComplete: result.stopReason == .endOfText).forEach(emit)
        let stream = parsing.stream
        var final = stream.reply
        if final.toolCalls.isEmpty, toolChoice != .none, format == nil,
           let call = BareToolCall.parse(final.content, toolNames: Set(toolBox.tools.map(\.name))) {
            // The whole answer was a call without its markup: it is a call, not text.
            final.toolCalls = [call]
            final.content = ""
            emit(.snapshot(text: "", thinking: final.reasoningContent))
        }
        let raw = stream.raw
        let phases = stream.phases
        var statistics = result.statistics
        statistics.thinkingTokens = final.reasoningContent.isEmpty ? 0
            : (try? model.tokenizer.tokenize(final.reasoningContent, addSpecial: false, parseSpecial: false).count) ?? 0
        // A call cut off by the token limit has unfinished arguments: it is dropped.
        let complete = final.toolCalls.enumerated().filter { _, call in
            (try? OrderedJSONParser.parse(call.arguments)) != nil
        }
        let calls = complete.enumerated().map { number, element in
            let (index, call) = element
            return ToolInvocation(id: "call-\(firstCallNumber + number)", modelCallID: (call.id ?? "").isEmpty ? nil : call.id,
                                  name: call.name, arguments: call.arguments, round: round,
                                  phase: index < phases.count ? phases[index] : .answer, output: nil, isError: false)
        }
        return RoundResult(content: final.content, thinking: final.reasoningContent, rawText: raw, calls: calls,
                           stopReason: result.stopReason, stopSequence: result.stopSequence, seed: result.seed,
                           statistics: statistics, history: plan.history, droppedTurns: plan.droppedTurns,
                           logProbabilities: result.logProbabilities, cachedTokens: plan.tokens + result.tokens)
    }
}

/// The reply parser of one round, fed from the model's thread as chunks arrive.
private final class RoundParsing: @unchecked Sendable {
    private(set) var stream: ReplyStream
    private let probe: ReplyParsingProbe?
    private var parseTime = Duration.zero
    private var chunks = 0

    init(rendered: ChatTemplate.RenderedPrompt, probe: ReplyParsingProbe?) {
        self.probe = probe
        var time = Duration.zero
        stream = ReplyParsingProbe.measure(probe, adding: &time) {
            ReplyStream(rendered: rendered, parsing: probe?.parsing ?? .incremental)
        }
        parseTime = time
    }

    func append(_ chunk: String) -> [Conversation.Event] {
        chunks += 1
        return ReplyParsingProbe.measure(probe, adding: &parseTime) { stream.append(chunk) }
    }

    func finish(isComplete: Bool) throws -> [Conversation.Event] {
        let events = try ReplyParsingProbe.measure(probe, adding: &parseTime) { try stream.finish(isComplete: isComplete) }
        probe?.record(duration: parseTime, chunks: chunks, parses: stream.parseCount)
        return events
    }
}
