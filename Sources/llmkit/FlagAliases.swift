/// The one table of alternative flag spellings, most of them llama.cpp's (`-p`, `--temp`,
/// `-n`, `-r`, `-sys`, `-j`…), so that flags people already know work in `llmkit`.
///
/// An alias applies to every command that has its canonical option, and only there: `-p`
/// means `--prompt` in `run`, and is unknown in `chat`, which has no `--prompt`. A command's
/// own ``CommandSpec/aliases`` win over this table; that is how `bench` keeps llama-bench's
/// meanings (`-p` prompt sizes, `-n` generation lengths, `-r` repetitions).
enum FlagAliases {
    /// Every flag declared as a ``Flag``: the groups that several commands share, and the flags of
    /// `run` and `chat` of their own.
    static var declared: [Flag] {
        ModelOptions.all + ModelOptions.promptCaching + ModelOptions.cacheLayout + GenerationFlags.all + SpeculationFlags.all + MediaFlags.all
            + RunCommand.prompt + RunCommand.output + ChatCommand.output
    }

    /// Alias → canonical option, from the declarations. A spelling declared for two different
    /// options is a mistake in the declarations, which a debug build (every test) stops at.
    static let table: [String: String] = Dictionary(declared.flatMap { flag in flag.aliases.map { ($0, flag.name) } },
                                                    uniquingKeysWith: { first, second in
                                                        assert(first == second, "an alias of both \(first) and \(second)")
                                                        return first
                                                    })

    /// The aliases that apply to `spec`: its own, then those of the table whose canonical
    /// option it has.
    static func aliases(for spec: CommandSpec) -> [String: String] {
        let options = spec.valueOptions.union(spec.flagOptions)
        return table.filter { options.contains($0.value) }.merging(spec.aliases) { _, own in own }
    }
}
