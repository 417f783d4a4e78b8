/// Reads a raw JSON Schema document within ``SchemaLimits``; ``SchemaNormalizer`` then
/// checks its keywords.
enum JSONSchemaChecker {
    /// Parses a JSON Schema document, keeping its key order.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a document that is too
    ///   large, too deeply nested or not JSON.
    static func parse(_ document: String) throws -> OrderedJSON {
        let size = document.utf8.count
        guard size <= SchemaLimits.maximumDocumentBytes else {
            throw OutputFormat.Error.invalidSchema(property: "schema", reason: "the schema is \(size) bytes long; "
                                            + "at most \(SchemaLimits.maximumDocumentBytes) are allowed")
        }
        do {
            return try OrderedJSONParser.parse(document)
        } catch {
            throw OutputFormat.Error.invalidSchema(property: "schema", reason: "not valid JSON: \(error)")
        }
    }
}
