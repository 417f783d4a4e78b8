/// Reads a GBNF grammar the way llama.cpp's parser (`llama_grammar_parser`) will, to
/// bound what it costs before llama.cpp parses it.
///
/// llama.cpp recurses once per nested parenthesis, expands every repetition `X{m,n}`
/// into copies of `X` and new rules, recurses along chains of leftmost rules to find
/// left recursion, and explores alternatives to build its first parse stacks, all
/// without limits: 50,000 nested parentheses overflow its stack and `"a"{1000000}`
/// or a long literal repeated 2,000 times exhausts memory. This scanner follows the
/// same steps on the same rule elements, counting them against ``SchemaLimits``, and
/// throws ``OutputFormat/Error/invalidGrammar(reason:)`` as soon as one is exceeded.
struct GrammarScanner {
    /// The element kinds of llama.cpp's `llama_gretype`.
    enum Kind: UInt8 {
        case end, alternative, ruleReference, character, characterNot, rangeUpper, characterAlternative, anyCharacter
        case token, tokenNot
    }

    /// One grammar element: its kind and value (a code point or a rule id).
    struct Element: Equatable {
        var kind: Kind
        var value: UInt32
    }

    /// The grammar's UTF-8 bytes and a terminating NUL, as llama.cpp reads them.
    let bytes: [UInt8]
    private var symbols: [[UInt8]: UInt32] = [:]
    private(set) var symbolCount: UInt32 = 0
    /// Rules by id, as llama.cpp stores them (nil: referenced, not defined yet).
    private(set) var rules: [[Element]?] = []
    private var elementCount = 0
    private var nameBytes = 0
    /// The id of the rule named `root`, once it is referenced or defined.
    var rootSymbol: UInt32? { symbols[Array("root".utf8)] }

    /// Scans `grammar`.
    /// - Throws: ``OutputFormat/Error/invalidGrammar(reason:)`` for a grammar beyond a bound, or one
    ///   this scanner cannot read (then llama.cpp could not either).
    static func check(_ grammar: String) throws {
        var scanner = try GrammarScanner(grammar)
        try scanner.parse()
        try scanner.simulate()
    }

    init(_ grammar: String) throws {
        let utf8 = Array(grammar.utf8)
        guard utf8.count <= SchemaLimits.maximumGrammarBytes else {
            throw Self.failure("it is \(utf8.count) bytes long; at most \(SchemaLimits.maximumGrammarBytes) are allowed")
        }
        guard !utf8.contains(0) else { throw Self.failure("it contains a NUL character") }
        bytes = utf8 + [0]          // llama.cpp reads a C string: a NUL ends it
    }

    static func failure(_ reason: String) -> OutputFormat.Error {
        .invalidGrammar(reason: reason)
    }

    /// Where `position` is, for messages.
    private func location(_ position: Int) -> String {
        let before = bytes[..<min(position, bytes.count - 1)]
        let line = before.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        let column = before.count - (before.lastIndex(of: 10).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)"
    }

    func syntaxError(_ message: String, at position: Int) -> OutputFormat.Error {
        Self.failure("\(message) at \(location(position))")
    }

    // MARK: Parsing, step for step as llama-grammar.cpp

    mutating func parse() throws {
        var position = skipSpace(0, newlines: true)
        while bytes[position] != 0 {
            position = try parseRule(position)
        }
    }

    private mutating func parseRule(_ start: Int) throws -> Int {
        let nameEnd = try parseName(start)
        var position = skipSpace(nameEnd, newlines: false)
        let name = Array(bytes[start..<nameEnd])
        let id = symbol(name)
        guard bytes[position] == 58, bytes[position + 1] == 58, bytes[position + 2] == 61 else {       // "::="
            throw syntaxError("expecting ::=", at: position)
        }
        position = skipSpace(position + 3, newlines: true)
        position = try parseAlternates(position, ruleName: name, id: id, nested: false, depth: 0)
        switch bytes[position] {
        case 13: position += bytes[position + 1] == 10 ? 2 : 1
        case 10: position += 1
        case 0: break
        default: throw syntaxError("expecting a newline or the end", at: position)
        }
        return skipSpace(position, newlines: true)
    }

    private mutating func parseAlternates(_ start: Int, ruleName: [UInt8], id: UInt32, nested: Bool, depth: Int) throws -> Int {
        guard depth <= SchemaLimits.maximumGrammarDepth else {
            throw syntaxError("parentheses nested deeper than \(SchemaLimits.maximumGrammarDepth) levels", at: start)
        }
        var rule: [Element] = []
        var position = try parseSequence(start, ruleName: ruleName, rule: &rule, nested: nested, depth: depth)
        while bytes[position] == 124 {                                                              // "|"
            rule.append(Element(kind: .alternative, value: 0))
            position = skipSpace(position + 1, newlines: true)
            position = try parseSequence(position, ruleName: ruleName, rule: &rule, nested: nested, depth: depth)
        }
        rule.append(Element(kind: .end, value: 0))
        try define(id, rule)
        return position
    }

    private mutating func parseSequence(_ start: Int, ruleName: [UInt8], rule: inout [Element], nested: Bool, depth: Int) throws -> Int {
        var lastSymbolStart = rule.count
        var position = start
        var previousRules: UInt64 = 1
        while true {
            let byte = bytes[position]
            switch byte {
            case 34:                                                                                // '"' literal
                position += 1
                lastSymbolStart = rule.count
                previousRules = 1
                while bytes[position] != 34 {
                    guard bytes[position] != 0 else { throw syntaxError("unexpected end of input", at: position) }
                    let (value, next) = try parseCharacter(position)
                    rule.append(Element(kind: .character, value: value))
                    position = next
                }
                position = skipSpace(position + 1, newlines: nested)
            case 91:                                                                                // "[" class
                position += 1
                var startKind = Kind.character
                if bytes[position] == 94 { position += 1; startKind = .characterNot }               // "^"
                lastSymbolStart = rule.count
                previousRules = 1
                while bytes[position] != 93 {                                                       // "]"
                    guard bytes[position] != 0 else { throw syntaxError("unexpected end of input", at: position) }
                    let (value, next) = try parseCharacter(position)
                    rule.append(Element(kind: lastSymbolStart < rule.count ? .characterAlternative : startKind, value: value))
                    position = next
                    if bytes[position] == 45, bytes[position + 1] != 93 {                           // "-" range
                        guard bytes[position + 1] != 0 else { throw syntaxError("unexpected end of input", at: position) }
                        let (upper, after) = try parseCharacter(position + 1)
                        rule.append(Element(kind: .rangeUpper, value: upper))
                        position = after
                    }
                }
                position = skipSpace(position + 1, newlines: nested)
            case 60, 33:                                                                            // "<" or "!" token
                var kind = Kind.token
                if byte == 33 { kind = .tokenNot; position += 1 }
                position = try parseToken(position)
                lastSymbolStart = rule.count
                previousRules = 1
                rule.append(Element(kind: kind, value: 0))
                position = skipSpace(position, newlines: nested)
            case _ where Self.isWordCharacter(byte):                                                // rule reference
                let nameEnd = try parseName(position)
                let id = symbol(Array(bytes[position..<nameEnd]))
                position = skipSpace(nameEnd, newlines: nested)
                lastSymbolStart = rule.count
                previousRules = 1
                rule.append(Element(kind: .ruleReference, value: id))
            case 40:                                                                                // "(" group
                position = skipSpace(position + 1, newlines: true)
                let rulesBefore = symbolCount
                let id = try generateSymbol(ruleName)
                position = try parseAlternates(position, ruleName: ruleName, id: id, nested: true, depth: depth + 1)
                previousRules = max(1, UInt64(symbolCount - rulesBefore))
                lastSymbolStart = rule.count
                rule.append(Element(kind: .ruleReference, value: id))
                guard bytes[position] == 41 else { throw syntaxError("expecting ')'", at: position) }
                position = skipSpace(position + 1, newlines: nested)
            case 46:                                                                                // "." any character
                lastSymbolStart = rule.count
                previousRules = 1
                rule.append(Element(kind: .anyCharacter, value: 0))
                position = skipSpace(position + 1, newlines: nested)
            case 42, 43, 63:                                                                        // "*", "+", "?"
                let at = position
                position = skipSpace(position + 1, newlines: nested)
                let (minimum, maximum): (UInt64, UInt64?) = byte == 42 ? (0, nil) : byte == 43 ? (1, nil) : (0, 1)
                try repeatLast(&rule, from: lastSymbolStart, minimum: minimum, maximum: maximum,
                               previousRules: &previousRules, ruleName: ruleName, at: at)
            case 123:                                                                               // "{m,n}"
                let at = position
                position = skipSpace(position + 1, newlines: nested)
                let (minimum, afterMinimum) = try parseCount(position)
                position = skipSpace(afterMinimum, newlines: nested)
                var maximum: UInt64? = minimum
                if bytes[position] == 125 {                                                         // "}"
                    position = skipSpace(position + 1, newlines: nested)
                } else if bytes[position] == 44 {                                                   // ","
                    position = skipSpace(position + 1, newlines: nested)
                    maximum = nil
                    if Self.isDigit(bytes[position]) {
                        let (value, after) = try parseCount(position)
                        maximum = value
                        position = skipSpace(after, newlines: nested)
                    }
                    guard bytes[position] == 125 else { throw syntaxError("expecting '}'", at: position) }
                    position = skipSpace(position + 1, newlines: nested)
                } else {
                    throw syntaxError("expecting ','", at: position)
                }
                for count in [minimum, maximum ?? 0] where count > SchemaLimits.maximumRepetition {
                    throw syntaxError("the repetition count \(count) exceeds \(SchemaLimits.maximumRepetition) (llama.cpp's limit)", at: at)
                }
                try repeatLast(&rule, from: lastSymbolStart, minimum: minimum, maximum: maximum,
                               previousRules: &previousRules, ruleName: ruleName, at: at)
            default:
                return position
            }
        }
    }

    /// llama.cpp's `handle_repetitions`: `S{m,n}` becomes m copies of S and n − m nested
    /// optional rules (`S*` one recursive rule), counted before anything is built.
    private mutating func repeatLast(_ rule: inout [Element], from lastSymbolStart: Int, minimum: UInt64, maximum: UInt64?,
                                     previousRules: inout UInt64, ruleName: [UInt8], at position: Int) throws {
        guard lastSymbolStart < rule.count else { throw syntaxError("nothing to repeat", at: position) }
        if let maximum, minimum > maximum {
            // llama.cpp computes n − m in unsigned arithmetic and would loop almost forever.
            throw syntaxError("the repetition's minimum \(minimum) exceeds its maximum \(maximum)", at: position)
        }
        let previous = Array(rule[lastSymbolStart...])
        let total: UInt64 = maximum.map { $0 > 0 ? $0 : 1 } ?? max(minimum, 1)
        guard previousRules * total <= UInt64(SchemaLimits.maximumRepetition) else {
            throw syntaxError("a repetition of a repetition expands to more than \(SchemaLimits.maximumRepetition) rules "
                              + "(llama.cpp's limit)", at: position)
        }
        let optionals = maximum.map { $0 - minimum } ?? 1
        let copies = minimum > 0 ? minimum - 1 : 0
        try reserve(elements: UInt64(rule.count) + UInt64(previous.count) * (copies + optionals) + optionals * 3,
                    rules: optionals, nameBytes: optionals * UInt64(ruleName.count + 8))
        if minimum == 0 {
            rule.removeSubrange(lastSymbolStart...)
        } else {
            for _ in 1..<max(minimum, 1) { rule.append(contentsOf: previous) }
        }
        var lastID: UInt32 = 0
        for index in 0..<optionals {
            let id = try generateSymbol(ruleName)
            var repeated = previous
            if index > 0 || maximum == nil {
                repeated.append(Element(kind: .ruleReference, value: maximum == nil ? id : lastID))
            }
            repeated.append(Element(kind: .alternative, value: 0))
            repeated.append(Element(kind: .end, value: 0))
            try define(id, repeated)
            lastID = id
        }
        if optionals > 0 { rule.append(Element(kind: .ruleReference, value: lastID)) }
        previousRules *= total
    }

    // MARK: Bookkeeping

    private mutating func reserve(elements: UInt64, rules newRules: UInt64, nameBytes newNameBytes: UInt64) throws {
        if UInt64(elementCount) + elements > UInt64(SchemaLimits.maximumGrammarElements) {
            throw Self.failure("it expands to more than \(SchemaLimits.maximumGrammarElements) elements once repetitions are written out")
        }
        if UInt64(symbolCount) + newRules > UInt64(SchemaLimits.maximumGrammarRules) {
            throw Self.failure("it expands to more than \(SchemaLimits.maximumGrammarRules) rules once repetitions are written out")
        }
        if UInt64(nameBytes) + newNameBytes > UInt64(SchemaLimits.maximumGrammarNameBytes) {
            throw Self.failure("the rule names llama.cpp would generate exceed \(SchemaLimits.maximumGrammarNameBytes) bytes")
        }
    }

    /// The name of rule `id`, for messages.
    func symbolName(_ id: UInt32) -> String {
        symbols.first { $0.value == id }.map { String(decoding: $0.key, as: UTF8.self) } ?? "#\(id)"
    }

    private mutating func symbol(_ name: [UInt8]) -> UInt32 {
        if let id = symbols[name] { return id }
        let id = symbolCount
        symbols[name] = id
        symbolCount += 1
        return id
    }

    private mutating func generateSymbol(_ base: [UInt8]) throws -> UInt32 {
        try reserve(elements: 0, rules: 1, nameBytes: UInt64(base.count + 8))
        nameBytes += base.count + 8
        let id = symbolCount
        symbolCount += 1
        return id
    }

    private mutating func define(_ id: UInt32, _ rule: [Element]) throws {
        try reserve(elements: UInt64(rule.count), rules: 0, nameBytes: 0)
        elementCount += rule.count          // what llama.cpp keeps: every rule as finally defined
        if rules.count <= Int(id) { rules.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - rules.count)) }
        rules[Int(id)] = rule
    }
}
