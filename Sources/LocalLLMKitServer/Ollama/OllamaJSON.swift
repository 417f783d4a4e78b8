import Foundation
import LocalLLMKit

/// Ollama's response objects: chat and generate answers (whole, or the lines of a stream),
/// with their counts and durations in nanoseconds, model listings and errors (`{"error": …}`).
enum OllamaJSON {
    /// `created_at`, as Ollama writes it.
    static func now() -> OrderedJSON { .string(Date().formatted(.iso8601)) }

    /// Ollama's `done_reason`.
    static func doneReason(_ reason: StopReason) -> String {
        reason == .maximumTokens ? "length" : "stop"
    }

    /// The counts and durations of a finished answer (`total_duration` from `received`).
    static func statistics(_ statistics: GenerationStatistics, received: ContinuousClock.Instant) -> [(String, OrderedJSON)] {
        func nanoseconds(_ duration: Duration) -> OrderedJSON {
            .integer(Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000))
        }
        return [
            ("total_duration", nanoseconds(.now - received)), ("load_duration", .integer(0)),
            ("prompt_eval_count", .integer(statistics.promptTokens)), ("prompt_eval_duration", nanoseconds(statistics.promptDuration)),
            ("eval_count", .integer(statistics.generatedTokens)), ("eval_duration", nanoseconds(statistics.generationDuration)),
        ]
    }

    /// A chat message: role, content, thinking and tool calls (arguments as objects).
    static func message(content: String, thinking: String = "", calls: [ToolInvocation] = []) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [("role", .string("assistant")), ("content", .string(content))]
        if !thinking.isEmpty { fields.append(("thinking", .string(thinking))) }
        if !calls.isEmpty {
            fields.append(("tool_calls", .array(calls.map { call in
                .object([("function", .object([("name", .string(call.name)), ("arguments", MessagesJSON.input(call.arguments))]))])
            })))
        }
        return .object(fields)
    }

    /// One line of a chat answer: a piece (`done` false) or the end, with its reason and counts.
    static func chat(model: String, message: OrderedJSON, done response: ModelResponse<String>?,
                     received: ContinuousClock.Instant) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [("model", .string(model)), ("created_at", now()), ("message", message),
                                               ("done", .bool(response != nil))]
        if let response {
            fields.append(("done_reason", .string(doneReason(response.stopReason))))
            fields += statistics(response.statistics, received: received)
        }
        return .object(fields)
    }

    /// One line of a generate answer.
    static func generate(model: String, text: String, thinking: String = "", done response: ModelResponse<String>?,
                         doneReason reason: String? = nil, received: ContinuousClock.Instant) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [("model", .string(model)), ("created_at", now()), ("response", .string(text))]
        if !thinking.isEmpty { fields.append(("thinking", .string(thinking))) }
        fields.append(("done", .bool(response != nil || reason != nil)))
        if let reason = reason ?? response.map({ doneReason($0.stopReason) }) { fields.append(("done_reason", .string(reason))) }
        if let response { fields += statistics(response.statistics, received: received) }
        return .object(fields)
    }

    /// A model's `details`.
    static func details(_ facts: ModelFacts) -> OrderedJSON {
        .object([
            ("parent_model", .string("")), ("format", .string("gguf")), ("family", .string(facts.architecture ?? "")),
            ("families", .array(facts.architecture.map { [.string($0)] } ?? [])),
            ("parameter_size", .string(facts.parameterSize)), ("quantization_level", .string(facts.quantization ?? "")),
        ])
    }

    /// An entry of `/api/tags`.
    static func tag(_ entry: ServedEntry) -> OrderedJSON {
        .object([
            ("name", .string(entry.id)), ("model", .string(entry.id)),
            ("modified_at", .string((entry.facts.modified ?? Date(timeIntervalSince1970: TimeInterval(entry.created))).formatted(.iso8601))),
            ("size", .integer(Int(entry.facts.fileSize))), ("digest", .string("")), ("details", details(entry.facts)),
        ])
    }

    /// Ollama's error body.
    static func error(_ error: APIError) -> OrderedJSON {
        .object([("error", .string(error.message))])
    }
}
