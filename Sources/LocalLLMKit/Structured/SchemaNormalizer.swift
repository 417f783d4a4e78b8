/// Checks a JSON Schema against what LocalLLMKit enforces, within ``SchemaLimits``, and
/// rewrites it into the subset that llama.cpp's converter turns into an exact grammar.
///
/// llama.cpp's converter silently ignores what it does not know (an unanchored
/// `pattern`, `format: email`, `minimum` next to `exclusiveMinimum`, keywords next to
/// `$ref` or `anyOf`), expands `type` lists by copying the whole schema, merges `allOf`
/// loosely and recurses without limit. The normalizer walks the schema once, in the
/// order llama.cpp will, counting depth (through references) and nodes; it rejects
/// every keyword or combination that would not be enforced, naming it and its path, and
/// leaves llama.cpp only plain forms: one `type` per node, `anyOf`, merged objects,
/// `$ref`s to renamed `$defs`. Numbers, formats, long strings and unique lists of listed
/// values become placeholders for LocalLLMKit's own GBNF, and `uniqueItems` elsewhere
/// becomes an ``OutputCheck`` run after generation.
struct SchemaNormalizer {
    /// What llama.cpp gets, and what LocalLLMKit adds to its grammar.
    struct Output {
        /// The document for llama.cpp's converter.
        var document: OrderedJSON
        /// String constants in `document` and the GBNF expressions that replace their literals.
        var placeholders: [(constant: String, expression: String)]
        /// GBNF rules the expressions use, one per line.
        var rules: String
        /// Checks that run on the generated JSON, when the grammar cannot enforce everything.
        var check: OutputCheck?
        /// The prefix of every placeholder and rule name.
        var nonce: String
    }

    let rootPath: String
    /// A word found nowhere in the document: placeholders and rule names start with it.
    let nonce: String
    /// The root's definitions, indexed.
    var definitionIndex: SchemaDefinitions
    /// Every step of the check, bounded.
    var work = SchemaWork()
    var placeholders: [(constant: String, expression: String)] = []
    var rules: [String: String] = [:]
    private var nodeCount = 0
    /// Definitions by their key (`$defs/Name`), renamed; `result` is nil while in progress.
    var definitions: [String: (name: String, result: NormalizedSchema?)] = [:]
    var normalizedDefinitions: [(String, OrderedJSON)] = []
    var definitionChecks: [String: UniqueCheck] = [:]

    /// Normalizes `document`, whose errors are reported under `name`.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)``.
    static func prepare(_ document: OrderedJSON, name: String) throws -> Output {
        var work = SchemaWork()
        return try prepare(document, name: name, work: &work)
    }

    /// ``prepare(_:name:)``, leaving in `work` the steps it took (also when it throws).
    static func prepare(_ document: OrderedJSON, name: String, work: inout SchemaWork) throws -> Output {
        let text = document.serialized()
        guard text.utf8.count <= SchemaLimits.maximumDocumentBytes else {
            throw OutputFormat.Error.invalidSchema(property: name, reason: "the schema is \(text.utf8.count) bytes long; "
                                            + "at most \(SchemaLimits.maximumDocumentBytes) are allowed")
        }
        var normalizer = try SchemaNormalizer(rootPath: name, nonce: Self.nonce(avoiding: text), root: document.members ?? [],
                                              work: &work)
        defer { work = normalizer.work }
        let result = try normalizer.normalize(document, path: name, depth: 0, isRoot: true)
        var prepared = result.json
        if !normalizer.normalizedDefinitions.isEmpty, case .object(var members) = prepared {
            members.append(("$defs", .object(normalizer.normalizedDefinitions)))
            prepared = .object(members)
        }
        let check = result.check.map { OutputCheck(root: $0, definitions: normalizer.definitionChecks) }
        let rules = normalizer.rules.sorted { $0.key < $1.key }.map { "\($0.key) ::= \($0.value)\n" }.joined()
        return Output(document: prepared, placeholders: normalizer.placeholders, rules: rules, check: check, nonce: normalizer.nonce)
    }

    private init(rootPath: String, nonce: String, root: [(String, OrderedJSON)], work: inout SchemaWork) throws {
        self.rootPath = rootPath
        self.nonce = nonce
        definitionIndex = try SchemaDefinitions(root: root, work: &work)
        self.work = work
    }

    /// `llmkit` followed by one `x` more than the longest run of them after any `llmkit` in
    /// `text`: a word found nowhere in it, found in one pass.
    static func nonce(avoiding text: String) -> String {
        let stem = Array("llmkit".utf8), bytes = Array(text.utf8)
        var longest = -1
        var index = 0
        while index + stem.count <= bytes.count {
            guard bytes[index..<(index + stem.count)].elementsEqual(stem) else { index += 1; continue }
            var end = index + stem.count
            while end < bytes.count, bytes[end] == UInt8(ascii: "x") { end += 1 }
            longest = max(longest, end - index - stem.count)
            index = end
        }
        return "llmkit" + String(repeating: "x", count: longest + 1)
    }

    // MARK: The walk

    /// Normalizes one schema node.
    mutating func normalize(_ schema: OrderedJSON, path: String, depth: Int, isRoot: Bool = false) throws -> NormalizedSchema {
        func fail(_ reason: String) -> OutputFormat.Error { .invalidSchema(property: path, reason: reason) }
        guard depth <= SchemaLimits.maximumDepth else {
            throw fail("schemas are nested deeper than \(SchemaLimits.maximumDepth) levels (references included)")
        }
        nodeCount += 1
        try work.spend(path: path)
        guard nodeCount <= SchemaLimits.maximumNodes else {
            throw fail("the schema has more than \(SchemaLimits.maximumNodes) parts once references and type lists are expanded")
        }
        let members: [(String, OrderedJSON)]
        switch schema {
        case .bool(true): members = []
        case .bool(false): throw fail("the schema false allows no value")
        case .object(let object): members = object
        default: throw fail("a schema must be an object or a boolean")
        }
        var keys: [String] = []
        for (key, _) in members where !SchemaKeywords.annotations.contains(key) {
            guard SchemaKeywords.constraints.contains(key) else { throw fail("the keyword \"\(key)\" is not supported") }
            if SchemaKeywords.definitions.contains(key) && !isRoot { continue }     // unreachable: only #/$defs/… is resolved
            guard !keys.contains(key) else { throw fail("the keyword \"\(key)\" appears twice") }
            if !SchemaKeywords.definitions.contains(key) { keys.append(key) }
        }
        let node = Node(members: members, keys: keys, path: path)
        // Keywords next to allOf are merged as one more part (see normalizeAllOf).
        for exclusive in ["$ref", "anyOf", "oneOf"] where keys.contains(exclusive) {
            if let other = keys.first(where: { $0 != exclusive }) {
                throw fail("\"\(other)\" next to \"\(exclusive)\" would be ignored; move it into the "
                           + (exclusive == "$ref" ? "referenced schema" : "alternatives"))
            }
        }
        if case .string(let reference)? = node["$ref"] {
            return try normalizeReference(reference, path: path, depth: depth)
        }
        if node["$ref"] != nil { throw fail("$ref must be a string") }
        for key in ["anyOf", "oneOf"] where node[key] != nil {
            return try normalizeAlternatives(node, key: key, depth: depth)
        }
        if node["allOf"] != nil { return try normalizeAllOf(node, depth: depth) }
        if node["const"] != nil || node["enum"] != nil { return try normalizeValues(node) }
        let types = try declaredTypes(node)
        if types.count > 1 { return try normalizeTypeList(node, types: types, depth: depth) }
        let type: String
        if let single = types.first {
            type = single
        } else {
            switch SchemaKeywords.impliedType(of: keys) {
            case .success(let implied?): type = implied
            case .success(nil): return NormalizedSchema(json: .object([]), types: nil)
            case .failure(.invalidSchema(_, let reason)): throw fail(reason)
            case .failure(let error): throw error
            }
        }
        for key in keys where key != "type" && !SchemaKeywords.keywords(of: type).contains(key) {
            throw fail("\"\(key)\" does not apply to type \(type)")
        }
        switch type {
        case "string": return try normalizeString(node)
        case "integer": return try normalizeInteger(node)
        case "number": return try normalizeNumber(node)
        case "array": return try normalizeArray(node, depth: depth)
        case "object": return try normalizeObject(node, depth: depth)
        default: return NormalizedSchema(json: .object([("type", .string(type))]), types: [type],
                                         values: type == "null" ? [.null] : [.bool(true), .bool(false)])
        }
    }

    /// The types `type` names, checked.
    private func declaredTypes(_ node: Node) throws -> [String] {
        switch node["type"] {
        case nil: return []
        case .string(let type)?:
            guard SchemaKeywords.types.contains(type) else { throw node.fail("unknown type \"\(type)\"") }
            return [type]
        case .array(let list)?:
            var types: [String] = []
            for entry in list {
                guard case .string(let type) = entry, SchemaKeywords.types.contains(type) else {
                    throw node.fail("type lists must name known types, e.g. [\"string\", \"null\"]")
                }
                guard !types.contains(type) else { throw node.fail("type lists \"\(type)\" twice") }
                types.append(type)
            }
            guard !types.isEmpty else { throw node.fail("the type list is empty") }
            return types
        default:
            throw node.fail("type must be a string or a list of strings")
        }
    }

    /// `{"type": [a, b], …}`: one alternative per type, each with the keywords of its type,
    /// so that nothing is copied (llama.cpp would copy the whole schema into each).
    private mutating func normalizeTypeList(_ node: Node, types: [String], depth: Int) throws -> NormalizedSchema {
        for key in node.keys where key != "type" && !types.contains(where: { SchemaKeywords.keywords(of: $0).contains(key) }) {
            throw node.fail("\"\(key)\" applies to none of the types listed")
        }
        var alternatives: [NormalizedSchema] = []
        for type in types {
            let own = node.members.filter { SchemaKeywords.keywords(of: type).contains($0.0) }
            alternatives.append(try normalize(.object([("type", .string(type))] + own), path: node.path, depth: depth + 1))
        }
        // The value's JSON type picks the alternative, so checks inside stay unambiguous.
        var checks: [String: UniqueCheck] = [:]
        for (type, alternative) in zip(types, alternatives) {
            if let check = alternative.check { checks[type] = check }
        }
        return NormalizedSchema(json: .object([("anyOf", .array(alternatives.map(\.json)))]),
                                types: Set(types), check: checks.isEmpty ? nil : .byType(checks))
    }
}

/// One schema object being normalized, with its keys (annotations left out).
struct Node {
    let members: [(String, OrderedJSON)]
    let keys: [String]
    let path: String

    subscript(key: String) -> OrderedJSON? { members.first { $0.0 == key }?.1 }

    func fail(_ reason: String) -> OutputFormat.Error { .invalidSchema(property: path, reason: reason) }

    /// A non-negative integer keyword, at most `limit`.
    func count(_ key: String, limit: Int) throws -> Int? {
        let count: Int
        switch self[key] {
        case nil: return nil
        case .integer(let value)? where value >= 0: count = value
        case .number(let value)? where value >= 0 && value == value.rounded():       // 2.0 is an integer in JSON Schema
            guard value <= Double(limit) else { throw fail("\(key) \(value) exceeds \(limit), the most LocalLLMKit can enforce") }
            count = Int(value)
        default: throw fail("\(key) must be a non-negative integer")
        }
        guard count <= limit else { throw fail("\(key) \(count) exceeds \(limit), the most LocalLLMKit can enforce") }
        return count
    }
}

/// What the normalizer knows about a normalized schema.
struct NormalizedSchema {
    /// The schema for llama.cpp.
    var json: OrderedJSON
    /// The JSON types a matching value can have; nil for any.
    var types: Set<String>?
    /// The only values allowed, when the schema lists them (`enum`, `const`, booleans, null).
    var values: [OrderedJSON]?
    /// Required properties whose schema lists values, by name: their canonical values.
    var discriminators: [String: Set<String>] = [:]
    /// What must be checked after generation.
    var check: UniqueCheck?
}

extension OrderedJSON {
    /// The members of an object; nil for other values.
    var members: [(String, OrderedJSON)]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
