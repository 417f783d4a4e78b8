extension GrammarScanner {
    /// Runs, with step and depth budgets, the two searches `llama_grammar_init_impl` makes
    /// once a grammar is parsed: the left-recursion check (a recursive walk down leftmost
    /// rules that does not remember rules already cleared, so it can take exponential time
    /// and recurse as deep as the longest chain), and the expansion of the root rule into
    /// its first parse stacks (exponential for grammars that nest ambiguous alternatives).
    /// A grammar with undefined rules or no `root` is left to llama.cpp, which rejects it.
    mutating func simulate() throws {
        guard !rules.isEmpty, rules.allSatisfy({ $0 != nil }), let root = rootID else { return }
        let defined = rules.map { $0! }
        var walk = LeftRecursionWalk(rules: defined)
        for index in defined.indices where !walk.visited[index] {
            if try walk.detect(index) { return }      // left recursion: llama.cpp reports it
        }
        try Self.expandInitialStacks(rules: defined, root: Int(root))
    }

    /// llama.cpp's `llama_grammar_detect_left_recursion`, counted.
    private struct LeftRecursionWalk {
        let rules: [[Element]]
        var visited: [Bool]
        var inProgress: [Bool]
        var mayBeEmpty: [Bool]
        var steps = 0

        init(rules: [[Element]]) {
            self.rules = rules
            visited = Array(repeating: false, count: rules.count)
            inProgress = visited
            mayBeEmpty = visited
        }

        /// Whether left recursion was found (llama.cpp then stops at once). The recursion of
        /// llama.cpp is kept on an explicit stack here, so the walk itself cannot overflow.
        mutating func detect(_ start: Int) throws -> Bool {
            // A frame: the rule, the next element to look at, and whether references still count as leftmost.
            var frames: [(rule: Int, element: Int, descend: Bool)] = []
            func enter(_ index: Int) throws -> Bool {
                steps += 1 + rules[index].count
                guard steps <= SchemaLimits.maximumGrammarSteps else {
                    throw GrammarScanner.failure("its rules branch so much that llama.cpp's left-recursion check would take "
                                                 + "more than \(SchemaLimits.maximumGrammarSteps) steps")
                }
                guard frames.count <= SchemaLimits.maximumLeftmostChain else {
                    throw GrammarScanner.failure("more than \(SchemaLimits.maximumLeftmostChain) rules start one with the other")
                }
                if inProgress[index] { return true }
                inProgress[index] = true
                var atStart = true
                for element in rules[index] {
                    if element.kind == .end || element.kind == .alternative {
                        if atStart { mayBeEmpty[index] = true; break }
                        atStart = true
                    } else {
                        atStart = false
                    }
                }
                frames.append((index, 0, true))
                return false
            }
            if try enter(start) { return true }
            while var frame = frames.popLast() {
                let rule = rules[frame.rule]
                var called: Int?
                while frame.element < rule.count {
                    let element = rule[frame.element]
                    frame.element += 1
                    if element.kind == .ruleReference && frame.descend {
                        called = Int(element.value)
                        break
                    } else if element.kind == .end || element.kind == .alternative {
                        frame.descend = true
                    } else {
                        frame.descend = false
                    }
                }
                if let called {
                    frames.append(frame)
                    if try enter(called) { return true }
                    continue
                }
                inProgress[frame.rule] = false
                visited[frame.rule] = true
                // Back in the caller: a reference that cannot be empty ends its leftmost run.
                if let caller = frames.indices.last, !mayBeEmpty[frame.rule] { frames[caller].descend = false }
            }
            return false
        }
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
