/// What one generation round of a turn produced, whoever generated it: the local engine
/// (``Conversation``) or a server (``RemoteConversation``).
struct RoundResult {
    var content: String
    var thinking: String
    var rawText: String
    /// The complete tool calls, numbered by the conversation.
    var calls: [ToolInvocation]
    var stopReason: StopReason
    var stopSequence: String?
    var seed: UInt32
    var statistics: GenerationStatistics
    /// The history the round was generated from (a local round may have dropped old turns).
    var history: [ChatMessage]
    var droppedTurns = 0
    /// Each generated token's log-probability, when the options asked for them.
    var logProbabilities: [TokenLogProbability] = []
    /// The tokens a local round left in the model's cache: its prompt and its answer.
    var cachedTokens: [Int32] = []
}

/// The tool loop of one conversation turn, shared by local and remote conversations: a round,
/// then the round's tool calls run concurrently and their results sent back, until an answer
/// without calls, the policy's round limit (``StopReason/toolRounds``), or cancellation. It
/// emits the tool events and `.done` (last, exactly once); the rounds emit the text.
struct TurnLoop {
    let request: TurnRequest
    let toolBox: ToolBox
    let flag: CancellationFlag
    let emit: @Sendable (Conversation.Event) -> Void

    /// Runs the turn.
    /// - Parameters:
    ///   - prompt: the user message that opens the turn.
    ///   - generate: one round: the turn's messages so far, the round's tool choice and number (from 1).
    ///   - commit: makes a finished turn part of the transcript: the history it was generated
    ///     from, and the turn's messages. Not called for a cancelled turn.
    func run(_ prompt: ChatMessage, isolation: isolated (any Actor)? = #isolation,
             generate: (_ pending: [ChatMessage], _ choice: Conversation.ToolChoice, _ round: Int) async throws -> RoundResult,
             commit: (_ history: [ChatMessage], _ turn: [ChatMessage]) -> Void) async throws -> ModelResponse<String> {
        var pending = [prompt]
        var invocations: [ToolInvocation] = []
        var logProbabilities: [TokenLogProbability] = []
        var totals = GenerationStatistics()
        var round = 0
        while true {
            let choice = Conversation.toolChoice(for: request, round: round)
            let outcome = try await generate(pending, choice, round + 1)
            totals.accumulate(outcome.statistics, first: round == 0)
            logProbabilities += outcome.logProbabilities
            let calls = choice == .none ? [] : outcome.calls
            var response = ModelResponse(content: outcome.content, text: outcome.content, thinking: outcome.thinking,
                                         rawText: outcome.rawText, stopReason: outcome.stopReason,
                                         stopSequence: outcome.stopSequence, seed: outcome.seed, statistics: totals,
                                         toolInvocations: invocations, droppedTurns: outcome.droppedTurns)
            response.logProbabilities = logProbabilities
            if outcome.stopReason == .cancelled || flag.isRaised {
                response.stopReason = .cancelled
                emit(.done(response))
                return response
            }
            pending.append(.assistant(outcome.content, thinking: outcome.thinking.isEmpty ? nil : outcome.thinking))
            guard !calls.isEmpty else {
                commit(outcome.history, pending)
                emit(.done(response))
                return response
            }
            pending[pending.count - 1].toolCalls = calls.map { ChatMessage.ToolCall(name: $0.name, arguments: $0.arguments,
                                                                                     id: $0.modelCallID ?? $0.id) }
            if round == request.toolPolicy.maximumRounds {
                // The limit is reached: the calls are answered, not run, so the transcript stays well-formed.
                for call in calls {
                    pending.append(.tool(ToolBox.error("not run: the limit of \(request.toolPolicy.maximumRounds) tool rounds was reached"),
                                         callID: call.modelCallID ?? call.id, name: call.name))
                }
                commit(outcome.history, pending)
                response.stopReason = .toolRounds
                emit(.done(response))
                return response
            }
            let finished = await toolBox.run(calls, emit: emit)
            if flag.isRaised {
                response.stopReason = .cancelled
                response.toolInvocations = invocations + finished
                emit(.done(response))
                return response
            }
            invocations += finished
            for call in finished {
                pending.append(.tool(call.output ?? "", callID: call.modelCallID ?? call.id, name: call.name))
            }
            round += 1
        }
    }
}
