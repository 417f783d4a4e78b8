/// What one generation round of a turn produced.
struct RoundOutcome {
    var plan: TurnPlan
    var reply: ParsedReply
    var rawText: String
    var calls: [ToolInvocation]
    var stopReason: StopReason
    var stopSequence: String?
    var seed: UInt32
    var statistics: GenerationStatistics
}

extension Conversation {
    /// Renders the turn so far and generates once, streaming thinking and text events.
    func generateRound(_ pending: [ChatMessage], options: CompletionOptions, toolChoice: ToolChoice, round: Int,
                       flag: CancellationFlag, emit: @escaping @Sendable (ResponseEvent) -> Void) throws -> RoundOutcome {
        let plan = try planTurn(pending, options: options, toolChoice: toolChoice)
        guard plan.fits else {
            throw LLMKitError.promptTooLong(tokens: plan.tokens.count, limit: contextLength - plan.reservedTokens)
        }
        let rendered = plan.rendered
        var runOptions = options
        runOptions.stopSequences += rendered.additionalStopSequences
        let thinking = ThinkingControl(generationPrompt: rendered.generationPrompt, budget: options.thinkingBudget,
                                       startTag: rendered.thinkingStartTag, endTags: rendered.thinkingEndTags,
                                       message: options.thinkingBudgetMessage)
        let preserved = Set(rendered.preservedTokens.compactMap { text -> Int32? in
            let tokens = (try? model.tokenizer.tokenize(text, addSpecial: false, parseSpecial: true)) ?? []
            return tokens.count == 1 ? tokens[0] : nil
        })
        let run = try CompletionRun(context: inferenceContext(), tokenizer: model.tokenizer, options: runOptions,
                                    promptTokens: plan.tokens, cancellation: flag,
                                    reusesCache: configuration.reusesPromptCache, thinking: thinking,
                                    chat: toolChoice == .none ? nil : rendered.render, preservedTokens: preserved)
        var raw = ""
        var tracker = ReplyTracker()
        var phases: [ToolInvocation.Phase] = []
        let result = try run.execute { chunk in
            raw += chunk
            guard let parsed = try? rendered.render.parse(raw, isPartial: true) else { return }
            if phases.count < parsed.toolCalls.count {
                // A call made before the thinking block closed belongs to the thinking phase.
                let thinking = !parsed.reasoningContent.isEmpty && !rendered.thinkingEndTags.contains { raw.contains($0) }
                phases += Array(repeating: thinking ? .thinking : .answer, count: parsed.toolCalls.count - phases.count)
            }
            tracker.update(to: parsed).forEach(emit)
        }
        let final = (try? rendered.render.parse(raw, isPartial: false))
            ?? (try? rendered.render.parse(raw, isPartial: true)) ?? tracker.reply
        tracker.update(to: final).forEach(emit)
        var statistics = result.statistics
        statistics.thinkingTokens = final.reasoningContent.isEmpty ? 0
            : (try? model.tokenizer.tokenize(final.reasoningContent, addSpecial: false, parseSpecial: false).count) ?? 0
        // A call cut off by the token limit has unfinished arguments: it is dropped.
        let complete = final.toolCalls.enumerated().filter { _, call in
            (try? OrderedJSONParser.parse(call.arguments)) != nil
        }
        let calls = complete.map { index, call in
            callCount += 1
            return ToolInvocation(id: "call-\(callCount)", modelCallID: (call.id ?? "").isEmpty ? nil : call.id,
                                  name: call.name, arguments: call.arguments, round: round,
                                  phase: index < phases.count ? phases[index] : .answer, output: nil, isError: false)
        }
        return RoundOutcome(plan: plan, reply: final, rawText: raw, calls: calls, stopReason: result.stopReason,
                            stopSequence: result.stopSequence, seed: result.seed, statistics: statistics)
    }
}
