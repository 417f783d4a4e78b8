extension GrammarScanner {
    /// Runs, with step and depth budgets, the two searches `llama_grammar_init_impl` makes
    /// once a grammar is parsed: the left-recursion check (a recursive walk down leftmost
    /// rules that does not remember rules already cleared, so it can take exponential time
    /// and recurse as deep as the longest chain), and the expansion of the root rule into
    /// its first parse stacks (exponential for grammars that nest ambiguous alternatives).
    /// A grammar with an undefined rule or no `root` is rejected here, naming it, as llama.cpp
    /// would (its parser prints why on stderr, which LocalLLMKit keeps silent).
    mutating func simulate() throws {
        // Every symbol is referenced or defined; one without a rule is referenced only.
        if let undefined = (0..<Int(symbolCount)).first(where: { $0 >= rules.count || rules[$0] == nil }) {
            let name = symbolName(UInt32(undefined))
            throw Self.failure("undefined rule identifier '\(name)'")
        }
        guard !rules.isEmpty, let root = rootID, Int(root) < rules.count else {
            throw Self.failure("the grammar has no rule named root")
        }
        let defined = rules.map { $0! }
        if try Self.hasLeftRecursion(defined) { return }        // llama.cpp reports it, before building stacks
        try Self.expandInitialStacks(rules: defined, root: Int(root))
    }

    /// The cost of llama.cpp's `llama_grammar_detect_left_recursion`, computed without paying it.
    ///
    /// llama.cpp walks, from each rule not yet cleared, into every reference in leftmost
    /// position (after references that may be empty), scanning each rule it enters, and
    /// never remembers a rule it cleared during the walk: a rule entered through k paths is
    /// scanned k times, and the walk recurses as deep as the longest chain. Both follow from
    /// the graph of leftmost references: the cost of a rule is its length plus the costs of
    /// its leftmost references (counted with repetition), computed once per rule here.
    /// - Returns: whether a rule reaches itself through leftmost references (left recursion).
    private static func hasLeftRecursion(_ rules: [[Element]]) throws -> Bool {
        let mayBeEmpty = rules.map { rule -> Bool in
            var atStart = true
            for element in rule {
                if element.kind == .end || element.kind == .alternative {
                    if atStart { return true }
                    atStart = true
                } else {
                    atStart = false
                }
            }
            return false
        }
        let callees = rules.map { rule -> [Int] in
            var found: [Int] = []
            var descend = true
            for element in rule {
                if element.kind == .ruleReference && descend {
                    let target = Int(element.value)
                    found.append(target)
                    if !mayBeEmpty[target] { descend = false }
                } else {
                    descend = element.kind == .end || element.kind == .alternative
                }
            }
            return found
        }
        let budget = UInt64(SchemaLimits.maximumLeftRecursionSteps)
        var cost = [UInt64](repeating: 0, count: rules.count)
        var height = [Int](repeating: 0, count: rules.count)
        var state = [UInt8](repeating: 0, count: rules.count)          // 0 new, 1 on the path, 2 done
        var recursive = false
        var total: UInt64 = 0
        for start in rules.indices where state[start] == 0 {
            // Post-order, on an explicit stack: (rule, next callee to look at).
            var path: [(rule: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let (rule, next) = path.last {
                if next < callees[rule].count {
                    path[path.count - 1].next += 1
                    let callee = callees[rule][next]
                    switch state[callee] {
                    case 0:
                        state[callee] = 1
                        path.append((callee, 0))
                    case 1:
                        recursive = true                                // a cycle: llama.cpp stops there
                    default:
                        break
                    }
                    continue
                }
                path.removeLast()
                state[rule] = 2
                var sum = UInt64(2 * rules[rule].count + 1)
                var deepest = 0
                for callee in callees[rule] where state[callee] == 2 {
                    sum = min(sum + cost[callee], budget + 1)
                    deepest = max(deepest, height[callee])
                }
                cost[rule] = sum
                height[rule] = deepest + 1
                guard height[rule] <= SchemaLimits.maximumLeftmostChain else {
                    throw failure("more than \(SchemaLimits.maximumLeftmostChain) rules start one with the other")
                }
            }
            total = min(total + cost[start], budget + 1)
            guard total <= budget else {
                throw failure("its rules branch so much that llama.cpp's left-recursion check would take more than \(budget) steps")
            }
        }
        return recursive
    }

    /// llama.cpp's `llama_grammar_advance_stack` for each alternative of the root rule.
    private static func expandInitialStacks(rules: [[Element]], root: Int) throws {
        typealias Position = (rule: Int, offset: Int)
        func key(_ position: Position) -> UInt64 { UInt64(position.rule) << 32 | UInt64(position.offset) }
        func isEndOfSequence(_ position: Position) -> Bool {
            let kind = rules[position.rule][position.offset].kind
            return kind == .end || kind == .alternative
        }
        func alternatives(of rule: Int) -> [Position] {
            var starts = [Position(rule: rule, offset: 0)]
            for (offset, element) in rules[rule].enumerated() where element.kind == .alternative {
                starts.append(Position(rule: rule, offset: offset + 1))
            }
            return starts
        }
        var steps = 0
        var comparisons = 0         // llama.cpp keeps its finished stacks unique with a linear search
        var finished = 0
        for start in alternatives(of: root) {
            var seen = Set<[UInt64]>()
            var todo: [[Position]] = [isEndOfSequence(start) ? [] : [start]]
            while let stack = todo.popLast() {
                steps += 1 + stack.count
                guard steps <= SchemaLimits.maximumGrammarSteps else {
                    throw GrammarScanner.failure("its alternatives nest so ambiguously that llama.cpp would build more than "
                                                 + "\(SchemaLimits.maximumGrammarSteps) parse states before the first token")
                }
                guard seen.insert(stack.map(key)).inserted else { continue }
                guard let top = stack.last else {
                    (comparisons, finished) = (comparisons + finished, finished + 1)
                    continue
                }
                switch rules[top.rule][top.offset].kind {
                case .ruleReference:
                    let next = Position(rule: top.rule, offset: top.offset + 1)
                    for alternative in alternatives(of: Int(rules[top.rule][top.offset].value)) {
                        var successor = Array(stack.dropLast())
                        if !isEndOfSequence(next) { successor.append(next) }
                        if !isEndOfSequence(alternative) { successor.append(alternative) }
                        todo.append(successor)
                    }
                case .character, .characterNot, .anyCharacter, .token, .tokenNot:
                    (comparisons, finished) = (comparisons + finished, finished + 1)
                    guard comparisons <= SchemaLimits.maximumGrammarSteps * 50 else {
                        throw GrammarScanner.failure("llama.cpp would start from more than \(finished) parse states")
                    }
                case .end, .alternative, .rangeUpper, .characterAlternative:
                    // llama.cpp aborts the process here (GGML_ABORT).
                    throw GrammarScanner.failure("a parse stack would stop inside a character class")
                }
            }
        }
    }

    /// The id of the rule named `root`, if there is one.
    private var rootID: UInt32? { rootSymbol }
}
