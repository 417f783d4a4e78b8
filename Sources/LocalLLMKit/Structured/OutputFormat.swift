/// What shape generated text must take.
public enum OutputFormat: Sendable, Equatable {
    /// Free text.
    case text
    /// JSON following an ``OutputSchema``, enforced by a grammar.
    case schema(OutputSchema)
    /// JSON following a raw JSON Schema document, enforced by a grammar.
    case jsonSchema(String)
    /// Text following a GBNF grammar (root rule `root`), as llama.cpp reads it.
    case grammar(String)
}

extension OutputFormat {
    /// What enforces a format: a grammar for sampling, and for schemas with `uniqueItems`
    /// over arbitrary items, a check of the finished JSON.
    struct Constraint: Sendable {
        /// The GBNF grammar (root rule `root`).
        var grammar: String
        /// The check to run on the output once generation ends normally.
        var check: OutputCheck?
    }

    /// The constraint that enforces the format, its grammar checked against `model`'s
    /// vocabulary; nil for free text.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` or ``OutputFormat/Error/invalidGrammar(reason:)``.
    func constraint(for model: ModelHandle) throws -> Constraint? {
        let constraint: Constraint
        let schemaName: String?
        switch self {
        case .text:
            return nil
        case .schema(let schema):
            let (grammar, check) = try Grammar.fromJSONSchema(schema.jsonSchemaValue(), name: schema.name)
            (constraint, schemaName) = (Constraint(grammar: grammar, check: check), schema.name)
        case .jsonSchema(let document):
            let (grammar, check) = try Grammar.fromJSONSchema(JSONSchemaChecker.parse(document), name: "schema")
            (constraint, schemaName) = (Constraint(grammar: grammar, check: check), "schema")
        case .grammar(let text):
            // llama.cpp's parser wants a final newline.
            (constraint, schemaName) = (Constraint(grammar: text.hasSuffix("\n") ? text : text + "\n", check: nil), nil)
        }
        do {
            try Grammar.check(constraint.grammar, model: model, scanned: schemaName != nil)
        } catch OutputFormat.Error.invalidGrammar(let reason) where schemaName != nil {
            throw OutputFormat.Error.invalidSchema(property: schemaName!, reason: "llama.cpp cannot use its grammar: \(reason)")
        }
        return constraint
    }

    /// ``constraint(for:)`` on a thread of the ``BlockingWorkPool``: a large schema is checked and
    /// converted off Swift's shared pool and off the model's executor, so that it delays neither
    /// other requests nor the model's generation.
    func preparedConstraint(for model: ModelHandle) async throws -> Constraint? {
        if case .text = self { return nil }
        return try await BlockingWorkPool.shared.run { try self.constraint(for: model) }
    }

    /// The GBNF grammar that enforces the format, checked against `model`'s vocabulary;
    /// nil for free text.
    /// - Throws: as ``constraint(for:)``.
    func grammar(for model: ModelHandle) throws -> String? {
        try constraint(for: model)?.grammar
    }

    /// The instruction added to a conversation's prompt so the model knows the format.
    var promptDescription: String? {
        switch self {
        case .text, .grammar: return nil
        case .schema(let schema): return schema.promptDescription
        case .jsonSchema(let document): return "Answer only with JSON that follows this JSON Schema:\n\(document)"
        }
    }
}
