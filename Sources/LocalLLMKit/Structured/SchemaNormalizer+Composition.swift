extension SchemaNormalizer {
    /// `{"$ref": "#/$defs/Name"}`: the definition is normalized once, on first use (as
    /// llama.cpp resolves it), under a new name that no property can collide with.
    mutating func normalizeReference(_ reference: String, path: String, depth: Int) throws -> NormalizedSchema {
        let (key, label) = try definitionIndex.key(of: reference, path: path)
        let name: String
        let result: NormalizedSchema?
        if let known = definitions[key] {
            (name, result) = known
        } else {
            try definitionIndex.checkChain(from: key, path: path, work: &work)
            name = "\(nonce)d\(definitions.count)"
            definitions[key] = (name, nil)
            let normalized = try normalize(definitionIndex[key]!, path: "\(rootPath).\(label)", depth: depth + 1)
            definitions[key] = (name, normalized)
            normalizedDefinitions.append((name, normalized.json))
            if let check = normalized.check { definitionChecks[name] = check }
            result = normalized
        }
        // A definition still in progress (a recursive schema) is looked up when the output is checked.
        let check: UniqueCheck?
        if let result {
            check = result.check == nil ? nil : .reference(name)
        } else {
            check = try definitionIndex.mentionsUniqueItems(key, work: &work) ? .reference(name) : nil
        }
        return NormalizedSchema(json: .object([("$ref", .string("#/$defs/\(name)"))]), types: result?.types,
                                values: result?.values, discriminators: result?.discriminators ?? [:], check: check)
    }

    /// `anyOf` and `oneOf`: llama.cpp writes both as alternatives, so `oneOf` is accepted only
    /// when no value can match two of them (different types, or a required `const` property
    /// with different values).
    mutating func normalizeAlternatives(_ node: Node, key: String, depth: Int) throws -> NormalizedSchema {
        guard case .array(let list)? = node[key], !list.isEmpty else { throw node.fail("\(key) must be a non-empty list of schemas") }
        var alternatives: [NormalizedSchema] = []
        for (index, schema) in list.enumerated() {
            alternatives.append(try normalize(schema, path: "\(node.path).\(key)[\(index)]", depth: depth + 1))
        }
        if key == "oneOf" {
            for first in alternatives.indices {
                for second in alternatives.indices where second > first
                    && !Self.disjoint(alternatives[first], alternatives[second]) {
                    throw node.fail("oneOf alternatives \(first) and \(second) can match the same value, which oneOf forbids and "
                                    + "the grammar cannot prevent; use anyOf, or tell them apart by type or by a required const property")
                }
            }
        }
        var types: Set<String>? = []
        for alternative in alternatives {
            if let own = alternative.types, let known = types { types = known.union(own) } else { types = nil }
        }
        var values: [OrderedJSON]? = []
        for alternative in alternatives {
            if let own = alternative.values, let known = values { values = known + own } else { values = nil }
        }
        return NormalizedSchema(json: .object([("anyOf", .array(alternatives.map(\.json)))]), types: types, values: values,
                                check: try Self.dispatch(alternatives, node: node, key: key))
    }

    /// Checks inside alternatives run only where the value's JSON type tells which alternative it took.
    private static func dispatch(_ alternatives: [NormalizedSchema], node: Node, key: String) throws -> UniqueCheck? {
        guard alternatives.contains(where: { $0.check != nil }) else { return nil }
        var checks: [String: UniqueCheck] = [:]
        for (index, alternative) in alternatives.enumerated() {
            guard let types = alternative.types, alternatives.indices.allSatisfy({ other in
                other == index || alternatives[other].types.map { !overlap(types, $0) } == true
            }) else {
                throw node.fail("uniqueItems inside \(key) alternatives of the same type cannot be checked; "
                                + "use one alternative, or a list of enum values")
            }
            if let check = alternative.check {
                for type in types { checks[type] = check }
            }
        }
        return .byType(checks)
    }

    /// Whether no value can match both schemas.
    static func disjoint(_ first: NormalizedSchema, _ second: NormalizedSchema) -> Bool {
        if let one = first.types, let other = second.types, !overlap(one, other) { return true }
        if let one = first.values, let other = second.values,
           Set(one.map(\.canonical)).isDisjoint(with: other.map(\.canonical)) { return true }
        for (name, values) in first.discriminators {
            if let others = second.discriminators[name], values.isDisjoint(with: others) { return true }
        }
        return false
    }

    /// Whether two sets of JSON types share a value (every integer is a number).
    static func overlap(_ one: Set<String>, _ other: Set<String>) -> Bool {
        func widened(_ types: Set<String>) -> Set<String> { types.contains("number") ? types.union(["integer"]) : types }
        return !widened(one).isDisjoint(with: widened(other))
    }

    /// `allOf`: one part stands for itself; several parts must be objects (directly or by
    /// reference), whose properties are merged into one object with the union of their
    /// `required` lists. Keywords next to `allOf` count as one more part. llama.cpp's own
    /// merge would drop everything but properties and enums silently.
    mutating func normalizeAllOf(_ node: Node, depth: Int) throws -> NormalizedSchema {
        guard case .array(let list)? = node["allOf"], !list.isEmpty else { throw node.fail("allOf must be a non-empty list of schemas") }
        let own = node.members.filter { $0.0 != "allOf" && !SchemaKeywords.definitions.contains($0.0) }
        let hasOwn = node.keys.contains { $0 != "allOf" }
        if list.count == 1 && !hasOwn { return try normalize(list[0], path: "\(node.path).allOf[0]", depth: depth + 1) }
        var parts = list.enumerated().map { (part: $0.element, path: "\(node.path).allOf[\($0.offset)]") }
        if hasOwn { parts.append((.object(own), node.path)) }
        var properties: [(String, OrderedJSON)] = []
        var propertyNames: Set<String> = []
        var required: [OrderedJSON] = []
        for (part, partPath) in parts {
            let members = try mergeableObject(part, path: partPath, depth: depth + 1)
            for (key, value) in members where !SchemaKeywords.annotations.contains(key) {
                switch (key, value) {
                case ("type", .string("object")), ("additionalProperties", .bool(true)): break
                case ("properties", .object(let entries)):
                    try work.spend(entries.count, path: partPath)
                    for (name, schema) in entries {
                        guard propertyNames.insert(name).inserted else {
                            throw node.fail("the property \"\(name)\" is defined by two allOf parts")
                        }
                        properties.append((name, schema))
                    }
                case ("required", .array(let names)):
                    try work.spend(names.count, path: partPath)
                    required += names
                default:
                    throw OutputFormat.Error.invalidSchema(property: partPath, reason: "allOf can only merge objects made of properties "
                                                    + "and required; \"\(key)\" here is not supported")
                }
            }
        }
        let merged = OrderedJSON.object([("type", .string("object")), ("properties", .object(properties)), ("required", .array(required))])
        return try normalize(merged, path: node.path, depth: depth + 1)
    }

    /// The members of an `allOf` part, through references and nested `allOf`s.
    private mutating func mergeableObject(_ part: OrderedJSON, path: String, depth: Int) throws -> [(String, OrderedJSON)] {
        guard depth <= SchemaLimits.maximumDepth else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "allOf parts are nested deeper than \(SchemaLimits.maximumDepth) levels")
        }
        guard let members = part.members else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "an allOf part must be an object schema")
        }
        if case .string(let reference)? = members.first(where: { $0.0 == "$ref" })?.1 {
            let (key, label) = try definitionIndex.key(of: reference, path: path)
            return try mergeableObject(definitionIndex[key]!, path: "\(rootPath).\(label)", depth: depth + 1)
        }
        try work.spend(members.count, path: path)
        if case .array(let parts)? = members.first(where: { $0.0 == "allOf" })?.1 {
            var merged: [(String, OrderedJSON)] = []
            var positions: [String: Int] = [:]
            for (index, inner) in parts.enumerated() {
                let innerMembers = try mergeableObject(inner, path: "\(path).allOf[\(index)]", depth: depth + 1)
                for (key, value) in innerMembers {
                    if let existing = positions[key], case .object(let old) = merged[existing].1, case .object(let new) = value {
                        try work.spend(old.count + new.count, path: path)
                        merged[existing].1 = .object(old + new)
                    } else if let existing = positions[key], case .array(let old) = merged[existing].1, case .array(let new) = value {
                        try work.spend(old.count + new.count, path: path)
                        merged[existing].1 = .array(old + new)
                    } else {
                        if positions[key] == nil { positions[key] = merged.count }
                        merged.append((key, value))
                    }
                }
            }
            return merged + members.filter { $0.0 != "allOf" }
        }
        return members
    }

    /// `enum` and `const`: the values are the grammar; every other keyword next to them would be ignored.
    func normalizeValues(_ node: Node) throws -> NormalizedSchema {
        let keyword = node["const"] != nil ? "const" : "enum"
        for key in node.keys where !["type", "enum", "const"].contains(key) {
            throw node.fail("\"\(key)\" next to \"\(keyword)\" would be ignored; list only values that meet it")
        }
        guard node["const"] == nil || node["enum"] == nil else { throw node.fail("use either const or enum, not both") }
        let values: [OrderedJSON]
        if let constant = node["const"] {
            values = [constant]
        } else {
            guard case .array(let list)? = node["enum"], !list.isEmpty else { throw node.fail("enum must be a non-empty list") }
            guard list.count <= SchemaLimits.maximumEnumValues else {
                throw node.fail("enum lists \(list.count) values; at most \(SchemaLimits.maximumEnumValues) are allowed")
            }
            values = list
        }
        if node["type"] != nil {
            let allowed = try declaredTypesForValues(node)
            for value in values where !(allowed.contains(value.jsonType) || value.jsonType == "integer" && allowed.contains("number")) {
                throw node.fail("the value \(value.serialized().prefix(80)) is not of type \(allowed.sorted().joined(separator: " or "))")
            }
        }
        let json: OrderedJSON = keyword == "const" ? .object([("const", values[0])]) : .object([("enum", .array(values))])
        return NormalizedSchema(json: json, types: Set(values.map(\.jsonType)), values: values)
    }

    private func declaredTypesForValues(_ node: Node) throws -> Set<String> {
        switch node["type"] {
        case .string(let type)? where SchemaKeywords.types.contains(type): return [type]
        case .array(let list)?:
            let names = list.compactMap { value -> String? in if case .string(let name) = value { return name } else { return nil } }
            guard names.count == list.count, !names.isEmpty, names.allSatisfy(SchemaKeywords.types.contains) else { fallthrough }
            return Set(names)
        default:
            throw node.fail("type must name known types")
        }
    }
}
