import CLlamaChatBridge
import Foundation

/// llama.cpp's grammar tools, through the bridge, behind LocalLLMKit's own checks.
enum Grammar {
    /// Converts a JSON Schema document to GBNF: ``SchemaNormalizer`` checks and rewrites it,
    /// llama.cpp's converter writes the grammar, and LocalLLMKit's rules replace the
    /// placeholders for what llama.cpp does not enforce (numbers, formats, long strings,
    /// unique lists). The result is scanned like any grammar.
    /// - Returns: the grammar, and the check to run on the output when the grammar cannot
    ///   enforce everything (`uniqueItems` on arbitrary items).
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)``.
    static func fromJSONSchema(_ document: OrderedJSON, name: String) throws -> (grammar: String, check: OutputCheck?) {
        let prepared = try SchemaNormalizer.prepare(document, name: name)
        let converted = try convert(prepared.document.serialized()) { .invalidSchema(property: name, reason: $0) }
        let grammar = substitute(prepared.placeholders, in: converted, nonce: prepared.nonce) + prepared.rules
        do {
            try GrammarScanner.check(grammar)
        } catch OutputFormat.Error.invalidGrammar(let reason) {
            throw OutputFormat.Error.invalidSchema(property: name, reason: "its grammar would be too large for llama.cpp: \(reason)")
        }
        return (grammar, prepared.check)
    }

    /// Checks that llama.cpp enforces a translated `pattern` as it is and within bounds.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` naming `path`.
    static func checkPattern(_ pattern: String, original: String, path: String) throws {
        func failure(_ reason: String) -> OutputFormat.Error {
            .invalidSchema(property: path, reason: "pattern \(original.prefix(200)): \(reason)")
        }
        let document = OrderedJSON.object([("type", .string("string")), ("pattern", .string(pattern))]).serialized()
        let grammar = try convert(document, failure: failure)
        // A pattern llama.cpp cannot express becomes "any string" (`root ::= string`, with a
        // warning on stderr): that would drop the pattern silently, so it is an error here.
        if grammar.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "root ::= string" }) {
            throw failure("llama.cpp cannot express it as a grammar")
        }
        do {
            try GrammarScanner.check(grammar)
        } catch OutputFormat.Error.invalidGrammar(let reason) {
            throw failure(reason)
        }
    }

    /// llama.cpp's converter on a prepared document (whose patterns ``checkPattern(_:original:path:)``
    /// has checked one by one).
    private static func convert(_ document: String, failure: (String) -> OutputFormat.Error) throws -> String {
        var error: llmkit_error?
        guard let converted = llmkit_json_schema_to_grammar(document, &error) else {
            throw failure(Bridge.take(error) ?? "llama.cpp cannot convert it")
        }
        return Bridge.take(converted) ?? ""
    }

    /// Replaces each placeholder's literal (llama.cpp writes a string constant as a quoted
    /// JSON string literal, `"\"name\""`) by its expression, in one pass.
    private static func substitute(_ placeholders: [(constant: String, expression: String)], in grammar: String,
                                   nonce: String) -> String {
        guard !placeholders.isEmpty else { return grammar }
        let expressions = Dictionary(placeholders.map { ($0.constant, $0.expression) }, uniquingKeysWith: { first, _ in first })
        let opening = "\"\\\"\(nonce)-", closing = "\\\"\""
        var output = ""
        var rest = grammar[...]
        while let start = rest.range(of: opening) {
            output += rest[..<start.lowerBound]
            let afterOpening = rest[start.upperBound...]
            let digits = afterOpening.prefix { $0.isASCII && $0.isNumber }
            if let end = afterOpening[digits.endIndex...].range(of: closing), end.lowerBound == digits.endIndex,
               let expression = expressions["\(nonce)-\(digits)"] {
                output += "(" + expression + ")"
                rest = afterOpening[end.upperBound...]
            } else {
                output += rest[start]
                rest = afterOpening
            }
        }
        return output + rest
    }

    /// Checks that llama.cpp can parse a GBNF grammar, first within ``SchemaLimits``
    /// (unless `scanned`: ``fromJSONSchema(_:name:)`` has done it).
    /// - Throws: ``OutputFormat/Error/invalidGrammar(reason:)``.
    static func check(_ grammar: String, model: ModelHandle, scanned: Bool = false) throws {
        if !scanned { try GrammarScanner.check(grammar) }
        let (accepted, reason) = model.parseGrammar(grammar)
        guard accepted else {
            throw OutputFormat.Error.invalidGrammar(reason: reason ?? "llama.cpp cannot parse it")
        }
    }
}
