/// GBNF for JSON strings whose length bounds exceed what llama.cpp can count.
///
/// llama.cpp's grammar parser rejects `X{m}` above 2,000 and silently drops an upper
/// bound above 2,000. A length L = 2000·q + r is written as q blocks of exactly 2,000
/// characters followed by r < 2,000 more, which keeps every count within the limit and
/// leaves exactly one way to read each string.
enum LengthGrammar {
    /// Characters per block: llama.cpp's repetition limit.
    static let block = SchemaLimits.maximumRepetition

    /// A JSON string of `minimum` to `maximum` (nil: any number of) characters, adding the
    /// rules it uses (named `prefix-…`) to `rules`. `block` is for tests.
    static func string(minimum: Int, maximum: Int?, prefix: String, rules: inout [String: String],
                       block: Int = LengthGrammar.block) -> String {
        let character = "\(prefix)-char", blockRule = "\(prefix)-block", part = "\(prefix)-part"
        // One JSON string character, as llama.cpp's converter writes it.
        rules[character] = #"[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt/] | "u" [0-9a-fA-F]{4})"#
        // A block of 40 parts of 50 characters: short rules, because llama.cpp's left-recursion
        // check rescans a block once for each optional block that starts with it.
        if block % 50 == 0 && block > 50 {
            rules[part] = "\(character){50}"
            rules[blockRule] = "\(part){\(block / 50)}"
        } else {
            rules[blockRule] = "\(character){\(block)}"
        }
        func blocks(_ low: Int, _ high: Int) -> String {
            low == high ? (low == 0 ? "" : "\(blockRule){\(low)}") : "\(blockRule){\(low),\(high)}"
        }
        func characters(_ low: Int, _ high: Int?) -> String {
            guard let high else { return "\(character){\(low),}" }
            return low == high ? (low == 0 ? "" : "\(character){\(low)}") : "\(character){\(low),\(high)}"
        }
        func sequence(_ parts: String...) -> String { parts.filter { !$0.isEmpty }.joined(separator: " ") }
        let (lowBlocks, lowRest) = minimum.quotientAndRemainder(dividingBy: block)
        let body: String
        if let maximum {
            let (highBlocks, highRest) = maximum.quotientAndRemainder(dividingBy: block)
            if lowBlocks == highBlocks {
                body = sequence(blocks(lowBlocks, lowBlocks), characters(lowRest, highRest))
            } else {
                var alternatives = [sequence(blocks(lowBlocks, lowBlocks), characters(lowRest, block - 1))]
                if lowBlocks + 1 <= highBlocks - 1 {
                    alternatives.append(sequence(blocks(lowBlocks + 1, highBlocks - 1), characters(0, block - 1)))
                }
                alternatives.append(sequence(blocks(highBlocks, highBlocks), characters(0, highRest)))
                body = "( " + alternatives.map { $0.isEmpty ? "\"\"" : $0 }.joined(separator: " | ") + " )"
            }
        } else {
            body = sequence(blocks(lowBlocks, lowBlocks), characters(lowRest, nil))
        }
        return #""\"" "# + (body.isEmpty ? "" : body + " ") + #""\"""#
    }
}
