/// GBNF for a JSON array of distinct values taken from a list (`uniqueItems` over `enum`,
/// `const` or `boolean` items).
///
/// The grammar has to remember which values were written. With few values it remembers
/// the set itself (one rule per reachable set), so items may come in any order. When
/// that would take too many rules it keeps the list's order instead (one rule per
/// position and count): the items then appear in the order the schema lists them.
enum UniqueChoiceGrammar {
    /// Elements the any-order form may use.
    static let anyOrderBudget = 50_000
    /// Values up to which the listed-order form is used (its rules chain one per value).
    static let orderedLimit = 500

    /// The GBNF expression for the array, adding its rules (named `prefix-…`) to `rules`;
    /// nil when neither form fits (the check then runs after generation).
    static func expression(values: [OrderedJSON], minimum: Int, maximum: Int?, prefix: String,
                           rules: inout [String: String]) -> String? {
        let count = values.count
        let most = min(maximum ?? count, count)
        let literals = values.map { literal($0.serialized()) }
        let id = "\(prefix)-u\(rules.count)"
        let first: String
        if anyOrderCost(count: count, most: most) <= anyOrderBudget {
            first = anyOrder(literals, minimum: minimum, most: most, id: id, rules: &rules)
        } else if count <= orderedLimit {
            first = ordered(literals, minimum: minimum, most: most, id: id, rules: &rules)
        } else {
            return nil
        }
        return #""[" space "# + first + #" space "]""#
    }

    /// Elements of the any-order form: for each set smaller than `most`, one alternative per value left.
    private static func anyOrderCost(count: Int, most: Int) -> Int {
        var sets = 1, total = 0
        for size in 0..<most {
            total += sets * (count - size) * 4
            if total > anyOrderBudget { return total }
            sets = sets * (count - size) / (size + 1)               // C(count, size + 1)
        }
        return total
    }

    /// One rule per set of values written so far.
    private static func anyOrder(_ literals: [String], minimum: Int, most: Int, id: String, rules: inout [String: String]) -> String {
        var names: [[Bool]: String] = [:]
        func state(_ used: [Bool]) -> String {
            if let name = names[used] { return name }
            let size = used.filter { $0 }.count
            let name = "\(id)-\(names.count)"
            names[used] = name
            var alternatives: [String] = []
            if size < most {
                for (index, literal) in literals.enumerated() where !used[index] {
                    var next = used
                    next[index] = true
                    alternatives.append((size == 0 ? "" : #""," space "#) + literal + " " + state(next))
                }
            }
            if size >= minimum { alternatives.append("\"\"") }
            rules[name] = alternatives.joined(separator: " | ")
            return name
        }
        return state(Array(repeating: false, count: literals.count))
    }

    /// One rule per (next position, items written): each value in turn is written or skipped.
    private static func ordered(_ literals: [String], minimum: Int, most: Int, id: String, rules: inout [String: String]) -> String {
        func state(_ position: Int, _ written: Int) -> String {
            let name = "\(id)-\(position)-\(written)"
            if rules[name] != nil { return name }
            rules[name] = ""                                        // reserved while building
            var alternatives: [String] = []
            if position == literals.count {
                alternatives.append("\"\"")
            } else {
                if written < most {
                    alternatives.append((written == 0 ? "" : #""," space "#) + literals[position] + " " + state(position + 1, written + 1))
                }
                // Skipping is possible while enough values remain to reach the minimum.
                if written + literals.count - position - 1 >= minimum {
                    alternatives.append(state(position + 1, written))
                }
            }
            rules[name] = alternatives.joined(separator: " | ")
            return name
        }
        return state(0, 0)
    }

    /// A GBNF string literal holding `text`.
    static func literal(_ text: String) -> String {
        QuotedLiteral.quoted(text, as: .grammar)
    }
}
