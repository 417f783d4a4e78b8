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
    let toolCalls: [ToolCall]

    /// One tool call of the turn.
    struct ToolCall: Encodable {
        /// The call's id (`call-1`, …).
        let id: String
        /// The tool's name.
        let name: String
        /// The arguments, as JSON text.
        let arguments: String
        /// The tool's output, or nil when it failed.
        let output: String?
        /// The error the model was given, or nil when the call succeeded.
        let error: String?

        /// The call as reported.
        init(_ invocation: ToolInvocation) {
            id = invocation.id
            name = invocation.name
            arguments = invocation.arguments
            output = invocation.isError ? nil : invocation.output
            error = invocation.isError ? invocation.output : nil
        }

        /// Encodes every key, null where a value is absent.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(arguments, forKey: .arguments)
            try container.encode(output, forKey: .output)
            try container.encode(error, forKey: .error)
        }

        private enum CodingKeys: String, CodingKey { case id, name, arguments, output, error }
    }

    /// The report of one answered turn.
    init(turn: Int, prompt: String, response: ModelResponse<String>) {
        self.turn = turn
        self.prompt = prompt
        text = response.text
        thinking = response.thinking.isEmpty ? nil : response.thinking
        stopReason = response.stopReason.rawValue
        stopSequence = response.stopSequence
        toolCalls = response.toolInvocations.map(ToolCall.init)
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

    /// The object as one line of compact JSON, with its newline.
    func line() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
