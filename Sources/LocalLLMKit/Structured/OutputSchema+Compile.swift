extension OutputSchema {
    /// The JSON Schema document, properties in writing order, no extra properties allowed.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for contradictory bounds.
    public func jsonSchema() throws -> String {
        try jsonSchemaValue().serialized()
    }

    /// The JSON Schema document as a value.
    func jsonSchemaValue() throws -> OrderedJSON {
        try validate()
        var document = Self.schema(for: kind)
        if case .object(var members) = document, let description {
            members.insert(("description", .string(description)), at: 0)
            document = .object(members)
        }
        return document
    }

    /// A short plain-text description of the expected answer, for the prompt.
    public var promptDescription: String {
        "Answer only with JSON\(description.map { " (\($0))" } ?? ""): " + Self.summary(of: kind, indent: "")
    }

    static func schema(for kind: Kind) -> OrderedJSON {
        func bounds(_ pairs: [(String, Int?)]) -> [(String, OrderedJSON)] {
            pairs.compactMap { key, value in value.map { (key, .integer($0)) } }
        }
        switch kind {
        case .text(let minimum, let maximum, let pattern):
            return .object([("type", .string("string"))] + bounds([("minLength", minimum), ("maxLength", maximum)])
                           + (pattern.map { [("pattern", .string($0))] } ?? []))
        case .integer(let minimum, let maximum):
            return .object([("type", .string("integer"))] + bounds([("minimum", minimum), ("maximum", maximum)]))
        case .number(let minimum, let maximum):
            return .object([("type", .string("number"))] + [("minimum", minimum), ("maximum", maximum)]
                .compactMap { key, value in value.map { (key, OrderedJSON.number($0)) } })
        case .boolean:
            return .object([("type", .string("boolean"))])
        case .choice(let options):
            return .object([("type", .string("string")), ("enum", .array(options.map { .string($0) }))])
        case .date:
            return .object([("type", .string("string")), ("format", .string("date"))])
        case .dateTime:
            return .object([("type", .string("string")), ("format", .string("date-time"))])
        case .list(of: let element, let minimum, let maximum):
            return .object([("type", .string("array")), ("items", schema(for: element))]
                           + bounds([("minItems", minimum), ("maxItems", maximum)]))
        case .dictionary(let value):
            return .object([("type", .string("object")), ("additionalProperties", schema(for: value))])
        case .object(let properties):
            let members: [(String, OrderedJSON)] = properties.map { property in
                var schema = schema(for: property.kind)
                if let description = property.description, case .object(var members) = schema {
                    members.append(("description", .string(description)))
                    schema = .object(members)
                }
                return (property.name, schema)
            }
            return .object([
                ("type", .string("object")),
                ("properties", .object(members)),
                ("required", .array(properties.filter { !$0.isOptional }.map { .string($0.name) })),
                ("additionalProperties", .bool(false)),
            ])
        }
    }

    /// The description of `kind`; kinds nested too deeply (which ``validate()`` rejects) end in "…".
    static func summary(of kind: Kind, indent: String, depth: Int = 0) -> String {
        guard depth <= SchemaLimits.maximumDepth else { return "…" }
        switch kind {
        case .text(let minimum, let maximum, let pattern):
            var parts = ["string"]
            if let minimum { parts.append("at least \(minimum) characters") }
            if let maximum { parts.append("at most \(maximum) characters") }
            if let pattern { parts.append("matching \(pattern)") }
            return parts.joined(separator: ", ")
        case .integer(let minimum, let maximum):
            return "integer" + range(minimum.map(String.init), maximum.map(String.init))
        case .number(let minimum, let maximum):
            return "number" + range(minimum.map { String($0) }, maximum.map { String($0) })
        case .boolean: return "true or false"
        case .choice(let options): return "one of " + options.map { "\"\($0)\"" }.joined(separator: ", ")
        case .date: return "date, YYYY-MM-DD"
        case .dateTime: return "date and time, ISO 8601"
        case .list(of: let element, let minimum, let maximum):
            var count = ""
            switch (minimum, maximum) {
            case let (low?, high?): count = " (\(low) to \(high) items)"
            case let (low?, nil): count = " (at least \(low) items)"
            case let (nil, high?): count = " (at most \(high) items)"
            case (nil, nil): break
            }
            return "list\(count) of " + summary(of: element, indent: indent, depth: depth + 1)
        case .dictionary(let value):
            return "object mapping names to " + summary(of: value, indent: indent, depth: depth + 1)
        case .object(let properties):
            let inner = indent + "  "
            let lines = properties.map { property in
                "\(inner)- \(property.name) (\(summary(of: property.kind, indent: inner, depth: depth + 1))\(property.isOptional ? ", optional" : ""))"
                    + (property.description.map { ": \($0)" } ?? "")
            }
            return "an object with these fields, in this order:\n" + lines.joined(separator: "\n")
        }
    }

    private static func range(_ minimum: String?, _ maximum: String?) -> String {
        switch (minimum, maximum) {
        case let (low?, high?): return " from \(low) to \(high)"
        case let (low?, nil): return " of at least \(low)"
        case let (nil, high?): return " of at most \(high)"
        case (nil, nil): return ""
        }
    }
}
