import Foundation

extension SchemaNormalizer {
    /// A string constant that stands, in llama.cpp's grammar, for `expression` (GBNF).
    mutating func placeholder(_ expression: String) -> OrderedJSON {
        let constant = "\(nonce)-\(placeholders.count)"
        placeholders.append((constant, expression))
        return .object([("const", .string(constant))])
    }

    /// Strings: a `format` or a `pattern` (each alone), or length bounds. llama.cpp's
    /// converter takes the pattern and drops the others, knows few formats, and counts only
    /// to 2,000 characters; longer bounds get LocalLLMKit's own rule.
    mutating func normalizeString(_ node: Node) throws -> NormalizedSchema {
        let minimum = try node.count("minLength", limit: SchemaLimits.maximumLength)
        let maximum = try node.count("maxLength", limit: SchemaLimits.maximumLength)
        if let minimum, let maximum, minimum > maximum {
            throw node.fail("minLength \(minimum) is above maxLength \(maximum)")
        }
        let hasLengths = minimum != nil || maximum != nil
        if let format = node["format"] {
            guard case .string(let name) = format else { throw node.fail("format must be a string") }
            guard let expression = FormatGrammar.expression(for: name, prefix: nonce, rules: &rules) else {
                throw node.fail("the format \"\(name)\" is not supported")
            }
            guard node["pattern"] == nil, !hasLengths else {
                throw node.fail("format \"\(name)\" cannot be combined with pattern, minLength or maxLength")
            }
            return NormalizedSchema(json: placeholder(expression), types: ["string"])
        }
        if let pattern = node["pattern"] {
            guard case .string(let text) = pattern else { throw node.fail("pattern must be a string") }
            guard !hasLengths else { throw node.fail("pattern cannot be combined with minLength or maxLength; bound the pattern's repetitions instead") }
            let translated: String
            do {
                translated = try PatternTranslator.translate(text)
            } catch let error as PatternTranslator.Failure {
                throw node.fail("pattern \(text.prefix(200)): \(error.reason)")
            }
            try Grammar.checkPattern(translated, original: text, path: node.path)
            return NormalizedSchema(json: .object([("type", .string("string")), ("pattern", .string(translated))]), types: ["string"])
        }
        if (minimum ?? 0) > SchemaLimits.maximumRepetition || (maximum ?? 0) > SchemaLimits.maximumRepetition {
            return NormalizedSchema(json: placeholder(LengthGrammar.string(minimum: minimum ?? 0, maximum: maximum, prefix: nonce, rules: &rules)),
                                    types: ["string"])
        }
        var members: [(String, OrderedJSON)] = [("type", .string("string"))]
        if let minimum { members.append(("minLength", .integer(minimum))) }
        if let maximum { members.append(("maxLength", .integer(maximum))) }
        return NormalizedSchema(json: .object(members), types: ["string"])
    }

    /// A bound keyword's value, which must be a finite number.
    private func bound(_ node: Node, _ key: String) throws -> Double? {
        switch node[key] {
        case nil: return nil
        case .integer(let value)?: return Double(value)
        case .number(let value)? where value.isFinite: return value
        default: throw node.fail("\(key) must be a finite number")
        }
    }

    /// Integers: llama.cpp obeys `minimum` or `exclusiveMinimum` (not both), so both fold into
    /// one inclusive bound each side, within ±(2^53 − 1).
    func normalizeInteger(_ node: Node) throws -> NormalizedSchema {
        let lower = [try bound(node, "minimum").map { $0.rounded(.up) },
                     try bound(node, "exclusiveMinimum").map { $0.rounded(.down) + 1 }].compactMap { $0 }.max()
        let upper = [try bound(node, "maximum").map { $0.rounded(.down) },
                     try bound(node, "exclusiveMaximum").map { $0.rounded(.up) - 1 }].compactMap { $0 }.min()
        let limit = Double(SchemaLimits.maximumInteger)
        for value in [lower, upper].compactMap({ $0 }) where abs(value) > limit {
            throw node.fail("integer bounds must lie within ±\(SchemaLimits.maximumInteger)")
        }
        if let lower, let upper, lower > upper { throw node.fail("no integer lies between the bounds") }
        var members: [(String, OrderedJSON)] = [("type", .string("integer"))]
        if let lower { members.append(("minimum", .integer(Int(lower)))) }
        if let upper { members.append(("maximum", .integer(Int(upper)))) }
        return NormalizedSchema(json: .object(members), types: ["integer"])
    }

    /// Numbers: llama.cpp enforces no bounds for them (and allows `1e999`), so every number
    /// gets a ``NumberGrammar`` rule.
    mutating func normalizeNumber(_ node: Node) throws -> NormalizedSchema {
        let step = 1 / pow(10, Double(NumberGrammar.fractionDigits))
        let minimum = [try bound(node, "minimum"), try bound(node, "exclusiveMinimum").map { $0 + step }].compactMap { $0 }.max()
        let maximum = [try bound(node, "maximum"), try bound(node, "exclusiveMaximum").map { $0 - step }].compactMap { $0 }.min()
        guard let expression = NumberGrammar.expression(minimum: minimum, maximum: maximum) else {
            throw node.fail("no number with at most \(NumberGrammar.fractionDigits) decimals within "
                            + "±\(Int64(NumberGrammar.limit)) lies between the bounds")
        }
        return NormalizedSchema(json: placeholder(expression), types: ["number"])
    }
}
