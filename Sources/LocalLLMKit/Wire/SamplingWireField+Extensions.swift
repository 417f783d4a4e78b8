/// llama-server's `dry_*` fields: the repetition guard, sent whole when it is set. A field
/// without `dry_multiplier` starts a guard that is off (multiplier 0), as llama-server's default.
enum RepetitionGuardFields {
    typealias Guard = CompletionOptions.Sampling.RepetitionGuard

    static let all: [SamplingWireField] = [
        field("dry_multiplier", "multiplier", .number(0...100), { .number($0.multiplier) }) {
            $0.multiplier = $1.doubleValue ?? 0
        },
        field("dry_base", "base", .number(1...100), { .number($0.base) }) { $0.base = $1.doubleValue ?? 1.75 },
        field("dry_allowed_length", "allowedLength", .integer(0...Int(Int32.max)), { .integer($0.allowedLength) }) {
            $0.allowedLength = $1.integerValue ?? 2
        },
        field("dry_penalty_last_n", "window", .integer(-1...Int(Int32.max)), { .integer($0.window) }) {
            $0.window = $1.integerValue ?? -1
        },
        field("dry_sequence_breakers", "sequenceBreakers", .strings(count: Guard.maximumSequenceBreakers),
              { .array($0.sequenceBreakers.map(OrderedJSON.string)) }) {
            guard case .array(let items) = $1 else { return }
            $0.sequenceBreakers = items.compactMap { if case .string(let text) = $0 { text } else { nil } }
        },
    ]

    private static func field(_ name: String, _ option: String, _ kind: SamplingWireField.Kind,
                              _ read: @escaping @Sendable (Guard) -> OrderedJSON,
                              _ write: @escaping @Sendable (inout Guard, OrderedJSON) -> Void) -> SamplingWireField {
        SamplingWireField(name: name, option: "sampling.repetitionGuard.\(option)", kind: kind,
                          value: { $0.sampling.repetitionGuard.map(read) }, apply: { options, value in
            var setting = options.sampling.repetitionGuard ?? Guard(multiplier: 0)
            write(&setting, value)
            options.sampling.repetitionGuard = setting
        })
    }
}

/// llama-server's `xtc_*` fields: top-choice exclusion, sent whole when it is set.
enum TopChoiceExclusionFields {
    typealias Exclusion = CompletionOptions.Sampling.TopChoiceExclusion

    static let all: [SamplingWireField] = [
        field("xtc_probability", "probability", { .number($0.probability) }) { $0.probability = $1.doubleValue ?? 0 },
        field("xtc_threshold", "threshold", { .number($0.threshold) }) { $0.threshold = $1.doubleValue ?? 0.1 },
    ]

    private static func field(_ name: String, _ option: String, _ read: @escaping @Sendable (Exclusion) -> OrderedJSON,
                              _ write: @escaping @Sendable (inout Exclusion, OrderedJSON) -> Void) -> SamplingWireField {
        SamplingWireField(name: name, option: "sampling.topChoiceExclusion.\(option)", kind: .number(0...1),
                          value: { $0.sampling.topChoiceExclusion.map(read) }, apply: { options, value in
            var setting = options.sampling.topChoiceExclusion ?? Exclusion(probability: 0)
            write(&setting, value)
            options.sampling.topChoiceExclusion = setting
        })
    }
}

/// llama-server's `mirostat` (0 off, 1 or 2), `mirostat_tau` and `mirostat_eta`; the last two
/// apply only where `mirostat` (read first) turned it on, as in llama-server.
enum MirostatFields {
    static let all: [SamplingWireField] = [
        SamplingWireField(name: "mirostat", option: "sampling.mirostat", kind: .integer(0...2),
                          value: { ($0.sampling.mirostat?.version.rawValue).map(OrderedJSON.integer) },
                          apply: { options, value in
                              let version = value.integerValue.flatMap(CompletionOptions.Sampling.Mirostat.Version.init(rawValue:))
                              options.sampling.mirostat = version.map { CompletionOptions.Sampling.Mirostat(version: $0) }
                          }),
        SamplingWireField(name: "mirostat_tau", option: "sampling.mirostat.tau", kind: .number(0...100),
                          value: { $0.sampling.mirostat.map { .number($0.tau) } },
                          apply: { options, value in options.sampling.mirostat?.tau = value.doubleValue ?? 5 }),
        SamplingWireField(name: "mirostat_eta", option: "sampling.mirostat.eta", kind: .number(0...1),
                          value: { $0.sampling.mirostat.map { .number($0.eta) } },
                          apply: { options, value in options.sampling.mirostat?.eta = value.doubleValue ?? 0.1 }),
    ]
}
