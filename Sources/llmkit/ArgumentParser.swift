import Foundation

/// A command's accepted options, for the small hand-written argument parser.
struct CommandSpec {
    /// The subcommand, e.g. `run`.
    let name: String
    /// One usage line, printed with usage errors.
    let usage: String
    /// The full help text.
    let help: String
    /// The options declared as ``Flag``s (with their help, aliases and library options).
    var flags: [Flag]
    /// Options that take a value (`--model PATH`), by their canonical names.
    var valueOptions: Set<String>
    /// Options that take no value (`--json`).
    var flagOptions: Set<String>
    /// Value options that may repeat (`--stop A --stop B`).
    var repeatableOptions: Set<String>
    /// This command's own short or alternative spellings, mapped to the canonical option name;
    /// they win over the shared ``FlagAliases/table``.
    var aliases: [String: String]
    /// The most positional arguments allowed.
    var maximumPositionals: Int

    /// A command that accepts `flags` and the options named besides them.
    init(name: String, usage: String, help: String, flags: [Flag] = [], valueOptions: Set<String> = [],
         flagOptions: Set<String> = [], repeatableOptions: Set<String> = [], aliases: [String: String] = [:],
         maximumPositionals: Int = 0) {
        self.name = name
        self.usage = usage
        self.help = help
        self.flags = flags
        self.valueOptions = valueOptions.union(flags.valueOptions)
        self.flagOptions = flagOptions.union(flags.flagOptions)
        self.repeatableOptions = repeatableOptions.union(flags.repeatableOptions)
        self.aliases = aliases
        self.maximumPositionals = maximumPositionals
    }
}

/// A usage error: the command line itself is wrong.
struct UsageError: Error {
    let message: String
}

/// The parsed command line of one subcommand.
struct ParsedArguments {
    /// Value options that take two arguments, as llama.cpp's do (`--control-vector-layer-range
    /// 2 20`); their value is the two joined by a comma (also accepted as `--name=2,20`).
    static let pairOptions: Set<String> = [ModelOptions.controlVectorLayerRange.name]

    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments` against `spec`. `--name=value` and `--` are understood; aliases
    /// (the spec's own, then ``FlagAliases/table``) become the canonical option names.
    init(_ arguments: [String], spec: CommandSpec) throws {
        let aliases = FlagAliases.aliases(for: spec)
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" || Double(argument) != nil {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            name = aliases[name] ?? name
            /// The option's value: after `=`, else the next argument.
            func optionValue(needed message: String) throws -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw UsageError(message: message) }
                index += 1
                return arguments[index - 1]
            }
            if name == "--format", spec.flagOptions.contains("--json") {
                // Ollama's spelling of the JSON mode: `--format json` is `--json`.
                let value = try optionValue(needed: "--format needs a value (json)")
                guard value == "json" else { throw UsageError(message: "--format takes json (the same as --json), not '\(value)'") }
                flags.insert("--json")
            } else if spec.flagOptions.contains(name) {
                if inlineValue != nil { throw UsageError(message: "\(name) takes no value") }
                flags.insert(name)
            } else if spec.valueOptions.contains(name) {
                var value = try optionValue(needed: "\(name) needs a value")
                if Self.pairOptions.contains(name) && inlineValue == nil {
                    guard index < arguments.count else { throw UsageError(message: "\(name) needs two values") }
                    value += "," + arguments[index]
                    index += 1
                }
                if values[name] != nil && !spec.repeatableOptions.contains(name) {
                    throw UsageError(message: "\(name) is given more than once")
                }
                values[name, default: []].append(value)
            } else {
                let known = spec.valueOptions.union(spec.flagOptions).union(aliases.keys).union(["--help"])
                    .union(spec.flagOptions.contains("--json") ? ["--format"] : [])
                let hint = Suggestion.nearest(to: name, in: known).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError(message: "unknown option \(name) for '\(spec.name)'\(hint)")
            }
        }
        if positionals.count > spec.maximumPositionals {
            throw UsageError(message: "unexpected argument '\(positionals[spec.maximumPositionals])'")
        }
    }

    /// Moves the first positional argument to the value of `option`, as if it had been given as
    /// `option VALUE` (`llmkit run MODEL PROMPT` is `llmkit run --model MODEL PROMPT`).
    mutating func moveFirstPositional(to option: String) {
        guard !positionals.isEmpty else { return }
        values[option, default: []].append(positionals.removeFirst())
    }

    /// Whether a flag was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The value of an option (the last one if repeated).
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    func allValues(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option, or a usage error naming the bad value.
    func integer(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(name) expects an integer\(describe(range)), got '\(text)'")
        }
        return number
    }

    /// A comma-separated list of integers (llama-bench style: `-p 128,512`).
    func integerList(_ name: String, in range: ClosedRange<Int>) throws -> [Int]? {
        guard let text = value(name) else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == parts.count, !numbers.isEmpty, numbers.allSatisfy(range.contains) else {
            throw UsageError(message: "\(name) expects comma-separated integers\(describe(range)), got '\(text)'")
        }
        return numbers
    }

    /// A floating-point option, or a usage error naming the bad value.
    func number(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text) else { throw UsageError(message: "\(name) expects a number, got '\(text)'") }
        guard number.isFinite else {
            throw UsageError(message: "\(name) expects a finite number, got '\(text)' (beyond the range of a 64-bit float)")
        }
        return number
    }

    private func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound, range.upperBound) {
        case (Int.min, Int.max): return ""
        case (let low, Int.max): return " ≥ \(low)"
        case (let low, let high): return " in \(low)...\(high)"
        }
    }
}
