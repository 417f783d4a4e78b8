extension SchemaNormalizer {
    /// Arrays: `items` with counts, or a closed tuple of `prefixItems`. `uniqueItems` over
    /// listed values becomes a ``UniqueChoiceGrammar``; elsewhere it is checked after generation.
    mutating func normalizeArray(_ node: Node, depth: Int) throws -> NormalizedSchema {
        if case .array? = node["items"] { throw node.fail("items must be one schema; use prefixItems for a tuple") }
        let minimum = try node.count("minItems", limit: SchemaLimits.maximumItems)
        let maximum = try node.count("maxItems", limit: SchemaLimits.maximumItems)
        if let minimum, let maximum, minimum > maximum { throw node.fail("minItems \(minimum) is above maxItems \(maximum)") }
        let unique: Bool
        switch node["uniqueItems"] {
        case nil, .bool(false)?: unique = false
        case .bool(true)?: unique = true
        default: throw node.fail("uniqueItems must be true or false")
        }
        if let prefix = node["prefixItems"] {
            guard case .array(let list) = prefix, !list.isEmpty else { throw node.fail("prefixItems must be a non-empty list of schemas") }
            guard node["items"] == nil || node["items"] == .bool(false) else {
                throw node.fail("prefixItems followed by more items is not supported; set items to false")
            }
            // llama.cpp writes every prefix item, so the tuple's length must be allowed.
            guard (minimum ?? 0) <= list.count, (maximum ?? list.count) >= list.count else {
                throw node.fail("minItems and maxItems must allow the \(list.count) prefixItems")
            }
            var items: [NormalizedSchema] = []
            for (index, schema) in list.enumerated() {
                items.append(try normalize(schema, path: "\(node.path)[\(index)]", depth: depth + 1))
            }
            let checks = items.map(\.check)
            let check: UniqueCheck? = unique || checks.contains(where: { $0 != nil })
                ? .array(items: nil, prefix: checks, uniquePath: unique ? node.path : nil) : nil
            return NormalizedSchema(json: .object([("type", .string("array")), ("prefixItems", .array(items.map(\.json)))]),
                                    types: ["array"], check: check)
        }
        let item = try normalize(node["items"] ?? .bool(true), path: node.path + "[]", depth: depth + 1)
        if unique, let values = item.values, item.check == nil {
            var distinct: [OrderedJSON] = []
            var seen = Set<String>()
            for value in values where seen.insert(value.canonical).inserted { distinct.append(value) }
            if let minimum, minimum > distinct.count {
                throw node.fail("minItems \(minimum) is above the \(distinct.count) distinct values the items may take")
            }
            if let expression = UniqueChoiceGrammar.expression(values: distinct, minimum: minimum ?? 0, maximum: maximum,
                                                               prefix: nonce, rules: &rules) {
                return NormalizedSchema(json: placeholder(expression), types: ["array"])
            }
        }
        var members: [(String, OrderedJSON)] = [("type", .string("array")), ("items", item.json)]
        if let minimum { members.append(("minItems", .integer(minimum))) }
        if let maximum { members.append(("maxItems", .integer(maximum))) }
        let check: UniqueCheck? = unique || item.check != nil
            ? .array(items: item.check, prefix: [], uniquePath: unique ? node.path : nil) : nil
        return NormalizedSchema(json: .object(members), types: ["array"], check: check)
    }

    /// Objects: `properties`, `required` (each one a property: llama.cpp ignores the others,
    /// and would then never write them) and `additionalProperties`.
    mutating func normalizeObject(_ node: Node, depth: Int) throws -> NormalizedSchema {
        var entries: [(String, OrderedJSON)] = []
        if let properties = node["properties"] {
            guard case .object(let list) = properties else { throw node.fail("properties must be an object") }
            entries = list
        }
        guard entries.count <= SchemaLimits.maximumProperties else {
            throw node.fail("an object may have at most \(SchemaLimits.maximumProperties) properties")
        }
        let names = Set(entries.map(\.0))
        var required: [String] = []
        var requiredNames: Set<String> = []
        if let list = node["required"] {
            guard case .array(let listed) = list else { throw node.fail("required must be a list of property names") }
            try work.spend(listed.count, path: node.path)
            for name in listed {
                guard case .string(let text) = name else { throw node.fail("required must be a list of property names") }
                guard names.contains(text) else {
                    throw node.fail("the required property \"\(text)\" is not among the properties")
                }
                if requiredNames.insert(text).inserted { required.append(text) }
            }
        }
        var properties: [(String, OrderedJSON)] = []
        var normalizedNames: Set<String> = []
        var checks: [String: UniqueCheck] = [:]
        var discriminators: [String: Set<String>] = [:]
        for (name, schema) in entries {
            guard normalizedNames.insert(name).inserted else { throw node.fail("the property \"\(name)\" is defined twice") }
            let property = try normalize(schema, path: "\(node.path).\(name)", depth: depth + 1)
            properties.append((name, property.json))
            if let check = property.check { checks[name] = check }
            if requiredNames.contains(name), let values = property.values { discriminators[name] = Set(values.map(\.canonical)) }
        }
        var members: [(String, OrderedJSON)] = [("type", .string("object"))]
        if node["properties"] != nil {
            members.append(("properties", .object(properties)))
            members.append(("required", .array(required.map { .string($0) })))
        }
        var additionalCheck: UniqueCheck?
        var optional = entries.count - required.count
        switch node["additionalProperties"] {
        case nil: break
        case .bool(let allowed)?:
            members.append(("additionalProperties", .bool(allowed)))
            if allowed { optional += 1 }
        case let schema?:
            let additional = try normalize(schema, path: node.path + "[*]", depth: depth + 1)
            members.append(("additionalProperties", additional.json))
            additionalCheck = additional.check
            optional += 1
        }
        if node["properties"] != nil, optional > SchemaLimits.maximumOptionalProperties {
            throw node.fail("an object may have at most \(SchemaLimits.maximumOptionalProperties) optional properties; "
                            + "list more of them in required")
        }
        let check: UniqueCheck? = checks.isEmpty && additionalCheck == nil ? nil : .object(properties: checks, additional: additionalCheck)
        return NormalizedSchema(json: .object(members), types: ["object"], discriminators: discriminators, check: check)
    }
}
