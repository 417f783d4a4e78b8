extension OutputSchema {
    /// Checks that every bound can be met, naming the first property that cannot, and that
    /// kinds nest at most 64 levels deep.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)``.
    public func validate() throws {
        try Self.checkDepth(kind, path: name)
        try Self.validate(kind, path: name)
    }

    /// Walks the kinds without recursion, so that a kind nested 100,000 levels deep is an
    /// error before anything recursive (validation, compilation, llama.cpp) sees it.
    private static func checkDepth(_ kind: Kind, path: String) throws {
        var pending = [(kind: kind, depth: 0, path: path)]
        while let (kind, depth, path) = pending.popLast() {
            guard depth <= SchemaLimits.maximumDepth else {
                throw OutputFormat.Error.invalidSchema(property: path, reason: "kinds are nested deeper than \(SchemaLimits.maximumDepth) levels")
            }
            switch kind {
            case .list(of: let element, _, _): pending.append((element, depth + 1, path + "[]"))
            case .dictionary(let value): pending.append((value, depth + 1, path + "[*]"))
            case .object(let properties): pending += properties.map { ($0.kind, depth + 1, path + "." + $0.name) }
            default: break
            }
        }
    }

    private static func validate(_ kind: Kind, path: String) throws {
        func fail(_ reason: String) -> OutputFormat.Error { .invalidSchema(property: path, reason: reason) }
        switch kind {
        case .text(let minimum, let maximum, let pattern):
            if let minimum, minimum < 0 { throw fail("minimum length \(minimum) is negative") }
            if let maximum, maximum < 0 { throw fail("maximum length \(maximum) is negative") }
            if let minimum, let maximum, minimum > maximum { throw fail("minimum length \(minimum) is above maximum length \(maximum)") }
            if let pattern, !(pattern.hasPrefix("^") && pattern.hasSuffix("$")) {
                throw fail("pattern \(pattern) must be anchored with ^ and $")
            }
        case .integer(let minimum, let maximum):
            if let minimum, let maximum, minimum > maximum { throw fail("minimum \(minimum) is above maximum \(maximum)") }
        case .number(let minimum, let maximum):
            if [minimum, maximum].contains(where: { $0.map { !$0.isFinite } ?? false }) { throw fail("bounds must be finite") }
            if [minimum, maximum].contains(where: { $0.map { abs($0) > NumberGrammar.limit } ?? false }) {
                throw fail("bounds must lie within ±\(Int64(NumberGrammar.limit))")
            }
            if let minimum, let maximum, minimum > maximum { throw fail("minimum \(minimum) is above maximum \(maximum)") }
        case .choice(let options):
            if options.isEmpty { throw fail("a choice needs at least one option") }
            if options.count > SchemaLimits.maximumEnumValues {
                throw fail("a choice may have at most \(SchemaLimits.maximumEnumValues) options")
            }
            if Set(options).count != options.count { throw fail("a choice lists the same option twice") }
        case .list(of: let element, let minimum, let maximum):
            if let minimum, minimum < 0 { throw fail("minimum count \(minimum) is negative") }
            if let maximum, maximum < 0 { throw fail("maximum count \(maximum) is negative") }
            if let minimum, let maximum, minimum > maximum { throw fail("minimum count \(minimum) is above maximum count \(maximum)") }
            try validate(element, path: path + "[]")
        case .dictionary(let value):
            try validate(value, path: path + "[*]")
        case .object(let properties):
            var seen = Set<String>()
            for property in properties {
                let propertyPath = path + "." + property.name
                if property.name.isEmpty { throw OutputFormat.Error.invalidSchema(property: propertyPath, reason: "a property needs a name") }
                if !seen.insert(property.name).inserted {
                    throw OutputFormat.Error.invalidSchema(property: propertyPath, reason: "the name is used twice")
                }
                try validate(property.kind, path: propertyPath)
            }
        case .boolean, .date, .dateTime:
            break
        }
    }
}
