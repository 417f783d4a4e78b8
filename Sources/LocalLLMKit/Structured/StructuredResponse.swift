import Foundation

/// Decodes generated JSON, telling a truncated answer from a malformed one.
enum StructuredDecoding {
    /// Decodes `text` as `T`.
    /// - Throws: ``OutputFormat/Error/incompleteOutput(raw:stopReason:)`` when generation stopped
    ///   before the JSON was complete, ``OutputFormat/Error/invalidOutput(raw:reason:)`` otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from text: String, stopReason: StopReason) throws -> T {
        let data = Data(text.utf8)
        let isCompleteJSON = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
        if !isCompleteJSON && (stopReason == .maximumTokens || stopReason == .cancelled) {
            throw OutputFormat.Error.incompleteOutput(raw: text, stopReason: stopReason)
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw OutputFormat.Error.invalidOutput(raw: text, reason: describe(error))
        }
    }

    /// A decoder that reads dates as `YYYY-MM-DD` or ISO 8601 date-times.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = parseDate(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "\"\(text)\" is not a date (YYYY-MM-DD) or an ISO 8601 date-time"))
        }
        return decoder
    }

    static func parseDate(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: text)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return error.localizedDescription
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the value" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

extension Conversation {
    /// Answers `prompt` with a value of type `T`: the schema derived from `T` is described
    /// in the prompt and enforced by a grammar while sampling, so the JSON always decodes.
    ///
    /// ```swift
    /// struct Verdict: Decodable, Sendable { var approved: Bool; var reason: String }
    /// let verdict = try await conversation.respond(to: scannedText, generating: Verdict.self).content
    /// ```
    /// Thinking is off for structured answers.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` before generation for a type
    ///   that cannot be described; ``OutputFormat/Error/incompleteOutput(raw:stopReason:)`` when the
    ///   token limit cut the JSON short.
    public nonisolated func respond<T: Decodable & Sendable>(to prompt: String, attachments: [MediaAttachment] = [],
                                                  generating type: T.Type,
                                                  options: CompletionOptions = .init()) async throws -> ModelResponse<T> {
        try await respond(to: prompt, attachments: attachments, format: .schema(try OutputSchema(deriving: T.self)),
                          options: options).decoded(as: T.self)
    }
}

extension LocalModel {
    /// Continues `prompt` (plain text, no chat template) with a value of type `T`,
    /// enforced by the grammar of the schema derived from `T`.
    /// - Throws: as ``Conversation/respond(to:attachments:generating:options:)``.
    public nonisolated func complete<T: Decodable & Sendable>(_ prompt: String, generating type: T.Type,
                                                   options: CompletionOptions = .init()) async throws -> ModelResponse<T> {
        try await complete(prompt, format: .schema(try OutputSchema(deriving: T.self)), options: options).decoded(as: T.self)
    }
}

extension ModelResponse<String> {
    /// This answer with its JSON text decoded as `T`, for the `generating:` overloads.
    /// - Throws: ``OutputFormat/Error/incompleteOutput(raw:stopReason:)`` when the token limit cut
    ///   the JSON short; ``OutputFormat/Error/invalidOutput(raw:reason:)`` when it does not decode.
    func decoded<T: Decodable & Sendable>(as type: T.Type) throws -> ModelResponse<T> {
        replacingContent(with: try StructuredDecoding.decode(T.self, from: text, stopReason: stopReason))
    }
}
