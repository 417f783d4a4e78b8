import Foundation
import LocalLLMKit

/// The JSON object that `llmkit chat --json` prints on one line of stdout for each turn.
/// Every object has the same keys, in the same (sorted) order; a value that is absent is null.
struct ChatTurnReport: Encodable {
    /// The turn's number in the conversation (1 for the first; /reset starts over).
    let turn: Int
    /// The user's message, as sent (a `"""` block with its newlines).
    let prompt: String
    /// The answer.
    let text: String
    /// The thinking, or nil when there was none.
    let thinking: String?
    /// Why generation stopped: `end_of_text`, `maximum_tokens`, `stop_sequence` or `tool_rounds`.
    let stopReason: String
    /// The stop sequence that ended the answer, or nil.
    let stopSequence: String?
    /// The tools called during the turn, in order (empty when none).
    let toolCalls: [ToolCallReport]

    /// The report of one answered turn.
    init(turn: Int, prompt: String, response: ModelResponse<String>) {
        self.turn = turn
        self.prompt = prompt
        text = response.text
        thinking = response.thinking.isEmpty ? nil : response.thinking
        stopReason = response.stopReason.rawValue
        stopSequence = response.stopSequence
        toolCalls = response.toolInvocations.map(ToolCallReport.init)
    }

    /// Encodes every key, null where a value is absent.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(turn, forKey: .turn)
        try container.encode(prompt, forKey: .prompt)
        try container.encode(text, forKey: .text)
        try container.encode(thinking, forKey: .thinking)
        try container.encode(stopReason, forKey: .stopReason)
        try container.encode(stopSequence, forKey: .stopSequence)
        try container.encode(toolCalls, forKey: .toolCalls)
    }

    private enum CodingKeys: String, CodingKey {
        case turn, prompt, text, thinking
        case stopReason = "stop_reason"
        case stopSequence = "stop_sequence"
        case toolCalls = "tool_calls"
    }
}
