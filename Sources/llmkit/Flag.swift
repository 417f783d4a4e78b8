/// One option of the command line, declared once: its name, its other spellings (most of them
/// llama.cpp's or Ollama's), the value it takes, its help, and the library option it sets.
/// A command's accepted options (``CommandSpec``), its `--help` lines, the alias table
/// (``FlagAliases``), the error wording (``ErrorWording``) and shell completion all come from
/// these declarations, so they cannot disagree.
struct Flag: Sendable {
    /// The canonical spelling, e.g. `--max-tokens`.
    let name: String
    /// Other spellings: short ones (`-n`) show beside the name in `--help`, long ones
    /// (`--n-predict`) after the help text as "also …".
    let aliases: [String]
    /// What the value is called in `--help` (`N`, `FILE`); nil for a flag that takes none.
    let value: String?
    /// Whether the option may be given more than once (`--stop A --stop B`).
    let isRepeatable: Bool
    /// The library option it sets (`sampling.topP`), so that the library's errors name the flag.
    let option: String?
    /// The help text; a line break starts a continuation line.
    let help: String

    /// A flag; `value` nil means it takes no value.
    init(_ name: String, _ aliases: String..., value: String? = nil, repeatable: Bool = false, option: String? = nil,
         help: String) {
        self.name = name
        self.aliases = aliases
        self.value = value
        self.isRepeatable = repeatable
        self.option = option
        self.help = help
    }

    /// The column where help texts start.
    static let helpColumn = 27
    /// The widest help line before "also …" moves to a line of its own.
    static let helpWidth = 112

    /// The `--help` lines of `flags`, in their order.
    static func help(_ flags: [Flag]) -> String {
        flags.map(\.helpLines).joined(separator: "\n")
    }

    /// This flag's `--help` lines: `  -n, --max-tokens N       text`, continuation lines under the text.
    var helpLines: String {
        let short = aliases.filter { !$0.hasPrefix("--") }
        let long = aliases.filter { $0.hasPrefix("--") }
        let spelling = short.isEmpty ? "      " + name : "  " + (short + [name]).joined(separator: ", ")
        let left = spelling + (value.map { " " + $0 } ?? "")
        let indent = String(repeating: " ", count: Self.helpColumn)
        var lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if !long.isEmpty {
            let also = "also " + long.joined(separator: ", ")
            if Self.helpColumn + lines[lines.count - 1].count + also.count + 2 <= Self.helpWidth {
                lines[lines.count - 1] += "; " + also
            } else {
                lines.append(also)
            }
        }
        let first = left.count + 2 <= Self.helpColumn
            ? left + String(repeating: " ", count: Self.helpColumn - left.count) + lines[0]
            : left + "  " + lines[0]
        return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }
}

extension Array where Element == Flag {
    /// The names of the options that take a value.
    var valueOptions: Set<String> { Set(filter { $0.value != nil }.map(\.name)) }
    /// The names of the flags that take none.
    var flagOptions: Set<String> { Set(filter { $0.value == nil }.map(\.name)) }
    /// The names of the options that may repeat.
    var repeatableOptions: Set<String> { Set(filter(\.isRepeatable).map(\.name)) }
}
