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
    /// The GBNF grammar that enforces the format, checked against `model`'s vocabulary;
    /// nil for free text.
    /// - Throws: ``LLMKitError/invalidSchema(property:reason:)`` or ``LLMKitError/invalidGrammar(reason:)``.
    func grammar(for model: ModelHandle) throws -> String? {
        let grammar: String
        switch self {
        case .text:
            return nil
        case .schema(let schema):
            grammar = try Grammar.fromJSONSchema(schema.jsonSchemaValue(), name: schema.name)
        case .jsonSchema(let document):
            grammar = try Grammar.fromJSONSchema(JSONSchemaChecker.check(document), name: "schema")
        case .grammar(let text):
            grammar = text.hasSuffix("\n") ? text : text + "\n"      // llama.cpp's parser wants a final newline
        }
        try Grammar.check(grammar, model: model)
        return grammar
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
