/// The one table of alternative flag spellings, most of them llama.cpp's (`-p`, `--temp`,
/// `-n`, `-r`, `-sys`, `-j`…), so that flags people already know work in `llmkit`.
///
/// An alias applies to every command that has its canonical option, and only there: `-p`
/// means `--prompt` in `run`, and is unknown in `chat`, which has no `--prompt`. A command's
/// own ``CommandSpec/aliases`` win over this table; that is how `bench` keeps llama-bench's
/// meanings (`-p` prompt sizes, `-n` generation lengths, `-r` repetitions).
enum FlagAliases {
    /// Alias → canonical option.
    static let table: [String: String] = [
        // the model and its context
        "-m": "--model", "-t": "--threads", "-c": "--context", "--ctx-size": "--context",
        "-ngl": "--gpu-layers", "--n-gpu-layers": "--gpu-layers", "-v": "--verbose",
        "-kvu": "--kv-unified", "-no-kvu": "--no-kv-unified", "-ts": "--tensor-split",
        "-ctk": "--cache-type-k", "-ctv": "--cache-type-v", "-fa": "--flash-attn",
        // speculative decoding
        "-md": "--draft-model", "--model-draft": "--draft-model", "--spec-draft-n-max": "--draft-max",
        // the prompt (run)
        "-p": "--prompt", "-f": "--prompt-file", "--file": "--prompt-file",
        // sampling and stopping
        "-n": "--max-tokens", "--n-predict": "--max-tokens", "--temp": "--temperature", "-s": "--seed",
        "-r": "--stop", "--reverse-prompt": "--stop",
        // chat
        "-sys": "--system", "--system-prompt": "--system", "--chat-template-file": "--chat-template",
        // structured output
        "-j": "--json-schema", "-jf": "--schema", "--json-schema-file": "--schema", "--grammar-file": "--grammar",
    ]

    /// The aliases that apply to `spec`: its own, then those of the table whose canonical
    /// option it has.
    static func aliases(for spec: CommandSpec) -> [String: String] {
        let options = spec.valueOptions.union(spec.flagOptions)
        return table.filter { options.contains($0.value) }.merging(spec.aliases) { _, own in own }
    }
}
