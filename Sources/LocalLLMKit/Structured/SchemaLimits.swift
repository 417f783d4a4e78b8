/// The bounds that every schema and grammar must stay within before llama.cpp sees it.
///
/// llama.cpp's JSON Schema converter and GBNF parser recurse without limit and expand
/// repetitions into copies of rules, so a small adversarial input can exhaust the stack
/// or memory. Each bound is far above what real schemas and grammars need, and
/// exceeding one is an ``OutputFormat/Error/invalidSchema(property:reason:)`` or
/// ``OutputFormat/Error/invalidGrammar(reason:)`` naming the bound.
enum SchemaLimits {
    /// Schemas nested inside schemas (through properties, items, alternatives and
    /// references), counted the way llama.cpp's converter descends.
    static let maximumDepth = 64
    /// Size of a JSON Schema document, in UTF-8 bytes.
    static let maximumDocumentBytes = 1 << 20
    /// Schema nodes after references, `allOf` merges and `type` lists are expanded.
    static let maximumNodes = 20_000
    /// Schema members visited while checking, counting each visit again where references and
    /// `allOf` merges lead back to them: bounds the total work, which depth and size alone do not.
    static let maximumCheckSteps = 2_000_000
    /// Properties of one object.
    static let maximumProperties = 1_000
    /// Optional properties of one object: llama.cpp's converter spends cubic time on them.
    static let maximumOptionalProperties = 100
    /// Values of one `enum`.
    static let maximumEnumValues = 2_000
    /// `minItems` / `maxItems`: llama.cpp's grammar engine counts repetitions up to 2,000
    /// and silently drops a larger upper bound.
    static let maximumItems = 2_000
    /// `minLength` / `maxLength` (longer strings are built from blocks of 2,000 characters).
    static let maximumLength = 1_000_000
    /// Characters in a `pattern`.
    static let maximumPatternLength = 4_096
    /// Groups nested inside a `pattern`.
    static let maximumPatternDepth = 32
    /// Integer bounds: the integers that every JSON parser reads exactly (±(2^53 − 1)).
    static let maximumInteger = 9_007_199_254_740_991

    /// Size of a GBNF grammar, in UTF-8 bytes.
    static let maximumGrammarBytes = 8 << 20
    /// Parentheses nested inside a GBNF rule.
    static let maximumGrammarDepth = 128
    /// Repetition count in GBNF (`{n}`, `{m,n}`): llama.cpp's own limit, above which it
    /// rejects a minimum and silently drops a maximum.
    static let maximumRepetition = 2_000
    /// Grammar elements once llama.cpp has expanded every repetition.
    static let maximumGrammarElements = 4_000_000
    /// Rules once llama.cpp has expanded every repetition.
    static let maximumGrammarRules = 500_000
    /// Bytes of the rule names llama.cpp generates while expanding repetitions.
    static let maximumGrammarNameBytes = 64 << 20
    /// Rules that llama.cpp's left-recursion check enters one inside another.
    static let maximumLeftmostChain = 1_000
    /// Rule elements llama.cpp's left-recursion check may scan (it rescans shared rules
    /// once per path, so a small grammar can ask for 2^40).
    static let maximumLeftRecursionSteps = 50_000_000
    /// Parse states llama.cpp may explore to build its first parse stacks (simulated here).
    static let maximumGrammarSteps = 1_000_000
}
