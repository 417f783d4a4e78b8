/// One streamed answer, assembled from its chunks: the text and thinking so far, the tool
/// calls (their pieces joined by index), how it finished, and the usage the server reported.
/// Only the first choice counts. The bounds of ``RemoteModel/Limits`` hold for the calls.
struct RemoteReply {
    /// A tool call being assembled.
    struct Call: Equatable {
        var id: String?
        var name = ""
        var arguments = ""
    }

    let limits: RemoteModel.Limits
    private(set) var content = ""
    private(set) var reasoning = ""
    private(set) var finishReason: String?
    /// The stop string that ended the answer, when the server said (vLLM's `stop_reason`).
    private(set) var stopString: String?
    private(set) var usage: ChatCompletionChunk.Usage?
    private(set) var timings: ChatCompletionChunk.Timings?
    /// Each generated token's log-probability, when the request asked for them.
    private(set) var logProbabilities: [TokenLogProbability] = []
    /// The calls by their index in the answer.
    private var callsByIndex: [Int: Call] = [:]
    /// The indexes in the order in which the calls began.
    private var callOrder: [Int] = []

    /// An empty answer, checked against `limits`.
    init(limits: RemoteModel.Limits) {
        self.limits = limits
    }

    /// The tool calls, in the order in which they began.
    var calls: [Call] { callOrder.compactMap { callsByIndex[$0] } }

    /// Whether the chunk carried part of the answer itself (text, thinking or a call), as
    /// opposed to only its end or usage.
    static func carriesOutput(_ chunk: ChatCompletionChunk) -> Bool {
        chunk.choices.contains { choice in
            choice.index == 0 && (!(choice.delta.content ?? "").isEmpty || !(choice.delta.reasoning ?? "").isEmpty
                                  || !choice.delta.toolCalls.isEmpty)
        }
    }

    /// Adds a chunk.
    /// - Returns: the thinking and text events it makes, in order.
    /// - Throws: ``RemoteModel/Error/serverError(type:message:)`` for an error in the stream,
    ///   ``RemoteModel/Error/invalidResponse(reason:)`` past a bound.
    mutating func apply(_ chunk: ChatCompletionChunk) throws -> [Conversation.Event] {
        if let error = chunk.error {
            throw RemoteModel.Error.serverError(type: error.type, message: error.message)
        }
        if let usage = chunk.usage { self.usage = usage }
        if let timings = chunk.timings { self.timings = timings }
        var events: [Conversation.Event] = []
        for choice in chunk.choices where choice.index == 0 {
            // A chunk's entries are those of the tokens whose text it brings: they come first,
            // as a local conversation's do (their number is bounded by the response's bytes).
            for entry in try LogProbabilityJSON.entries(from: choice.logProbabilities) {
                logProbabilities.append(entry)
                events.append(.logProbability(entry))
            }
            if let delta = choice.delta.reasoning, !delta.isEmpty {
                reasoning += delta
                events.append(.thinking(delta))
            }
            if let delta = choice.delta.content, !delta.isEmpty {
                content += delta
                events.append(.text(delta))
            }
            for piece in choice.delta.toolCalls {
                try add(piece)
            }
            if let reason = choice.finishReason {
                finishReason = reason
                stopString = choice.stopString
            }
        }
        return events
    }

    /// Joins a piece to its call. A piece without an index continues the last call, unless it
    /// brings a new id (servers that send each call whole, without indexes).
    private mutating func add(_ piece: ChatCompletionChunk.ToolCallDelta) throws {
        let index: Int
        if let given = piece.index {
            index = given
        } else if let last = callOrder.last, piece.id == nil || piece.id == callsByIndex[last]?.id {
            index = last
        } else {
            index = (callOrder.max() ?? -1) + 1
        }
        guard index >= 0, index < limits.maximumToolCalls else {
            throw RemoteModel.Error.invalidResponse(reason: "a tool call has the index \(index); at most "
                                                    + "\(limits.maximumToolCalls) calls are allowed (limits.maximumToolCalls)")
        }
        if callsByIndex[index] == nil {
            callOrder.append(index)
            callsByIndex[index] = Call()
        }
        var call = callsByIndex[index]!
        if let id = piece.id, !id.isEmpty { call.id = id }
        if let name = piece.name, name != call.name { call.name += name }     // a repeated whole name is not a piece
        if let arguments = piece.arguments { call.arguments += arguments }
        guard call.name.utf8.count + call.arguments.utf8.count <= limits.maximumArgumentBytes else {
            throw RemoteModel.Error.invalidResponse(reason: "the tool call \(call.name.prefix(64)) is longer than "
                                                    + "\(limits.maximumArgumentBytes) bytes (limits.maximumArgumentBytes)")
        }
        callsByIndex[index] = call
    }
}
