/// The definitions of a schema document (`$defs` and `definitions` at its root), indexed once,
/// with what the normalizer asks of them answered in time linear in the document overall.
///
/// A `$defs` chain in which each definition refers to the next would otherwise cost quadratic
/// time: finding a definition by scanning its container, walking the chain again from each link,
/// and walking every definition reachable from each recursive reference.
struct SchemaDefinitions {
    /// Definitions by key (`$defs/Name`); the first of two equal names counts, as in a lookup.
    private var schemas: [String: OrderedJSON] = [:]
    /// Definitions whose chain of plain references is known to reach a schema.
    private var reachesSchema: Set<String> = []
    /// Definitions that say `uniqueItems`, or refer to one that does; computed on first use.
    private var mentioningUniqueItems: Set<String>?

    /// Indexes the definitions among the members of the root schema.
    init(root: [(String, OrderedJSON)], work: inout SchemaWork) throws {
        for (container, value) in root where SchemaKeywords.definitions.contains(container) {
            guard let members = value.members else { continue }
            for (name, schema) in members {
                try work.spend(path: container)
                let key = "\(container)/\(name)"
                if schemas[key] == nil { schemas[key] = schema }
            }
        }
    }

    /// The definition at `key`.
    subscript(key: String) -> OrderedJSON? { schemas[key] }

    /// The key (`$defs/Name`) and path label of a reference.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a reference that is not
    ///   `#/$defs/NAME` or `#/definitions/NAME`, or that names no definition.
    func key(of reference: String, path: String) throws -> (key: String, label: String) {
        for container in SchemaKeywords.definitions where reference.hasPrefix("#/\(container)/") {
            let escaped = reference.dropFirst(container.count + 3)
            guard !escaped.isEmpty, !escaped.contains("/") else { break }
            // JSON Pointer escapes: ~1 is "/", ~0 is "~".
            let name = escaped.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            let key = "\(container)/\(name)"
            guard schemas[key] != nil else {
                throw OutputFormat.Error.invalidSchema(property: path, reason: "$ref \"\(reference)\" points to no definition")
            }
            return (key, "\(container).\(name)")
        }
        throw OutputFormat.Error.invalidSchema(property: path, reason: "$ref \"\(reference)\" is not supported; "
                                        + "only \"#/$defs/NAME\" and \"#/definitions/NAME\" are")
    }

    /// The definition that a definition refers to with `$ref` (a reference stands alone, but
    /// for annotations, or the normalizer rejects it).
    private func plainReference(of key: String) -> String? {
        guard let members = schemas[key]?.members,
              case .string(let next)? = members.first(where: { $0.0 == "$ref" })?.1 else { return nil }
        return try? self.key(of: next, path: "").key
    }

    /// Rejects definitions that only refer on to each other in a circle: no schema is ever
    /// reached. Each definition's chain is walked once over all calls.
    mutating func checkChain(from start: String, path: String, work: inout SchemaWork) throws {
        var chain: [String] = []
        var seen: Set<String> = []
        var key = start
        while !reachesSchema.contains(key) {
            try work.spend(path: path)
            guard seen.insert(key).inserted else {
                throw OutputFormat.Error.invalidSchema(property: path, reason: "the references "
                                                + Self.describe(chain + [key]) + " never reach a schema")
            }
            chain.append(key)
            guard let next = plainReference(of: key) else { break }
            key = next
        }
        reachesSchema.formUnion(chain)
    }

    /// A chain of references for a message: its ends, and how many lie between them.
    private static func describe(_ chain: [String]) -> String {
        guard chain.count > 8 else { return chain.joined(separator: " → ") }
        return (chain.prefix(4) + ["… (\(chain.count - 8) more)"] + chain.suffix(4)).joined(separator: " → ")
    }

    /// Whether the definition, or one it refers to, says `uniqueItems` anywhere. The first call
    /// walks every definition once; later calls look the answer up.
    mutating func mentionsUniqueItems(_ key: String, work: inout SchemaWork) throws -> Bool {
        if let known = mentioningUniqueItems { return known.contains(key) }
        var direct: [String] = []
        var referrers: [String: [String]] = [:]
        for (source, schema) in schemas {
            var stack = [schema]
            var says = false
            while let value = stack.popLast() {
                try work.spend(path: source)
                switch value {
                case .object(let members):
                    for (member, child) in members {
                        if member == "uniqueItems" && child == .bool(true) { says = true }
                        if member == "$ref", case .string(let reference) = child,
                           let (target, _) = try? self.key(of: reference, path: "") {
                            referrers[target, default: []].append(source)
                        }
                        stack.append(child)
                    }
                case .array(let values): stack.append(contentsOf: values)
                default: break
                }
            }
            if says { direct.append(source) }
        }
        // Whatever refers to a definition that mentions it mentions it too.
        var mentioning = Set(direct)
        var pending = direct
        while let target = pending.popLast() {
            for source in referrers[target] ?? [] where mentioning.insert(source).inserted {
                try work.spend(path: source)
                pending.append(source)
            }
        }
        mentioningUniqueItems = mentioning
        return mentioning.contains(key)
    }
}

/// The total work of checking one schema, bounded (not only its depth and size): steps are
/// schema members visited, however often references and merges make the normalizer revisit them.
struct SchemaWork {
    private(set) var steps = 0

    /// Counts `count` steps.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` past ``SchemaLimits/maximumCheckSteps``.
    mutating func spend(_ count: Int = 1, path: String) throws {
        steps += count
        guard steps <= SchemaLimits.maximumCheckSteps else {
            throw OutputFormat.Error.invalidSchema(property: path, reason: "checking the schema takes more than "
                                            + "\(SchemaLimits.maximumCheckSteps) steps once references and merges are followed")
        }
    }
}
