/// One generation setting as OpenAI-compatible servers name it in a request's JSON (OpenAI's
/// name where it has one, llama-server's for the rest), with the values a server takes. The
/// table, ``all``, is read in both directions: `RemoteModel` writes every field that is set, and
/// `llmkit serve` reads every field the table names, so a setting one side sends the other
/// reads. (`stop`, `logit_bias` and `max_completion_tokens` have shapes of their own, and the
/// server reads them beside the table.)
package struct SamplingWireField: Sendable {
    /// The JSON a field takes.
    package enum Kind: Sendable {
        /// A number within the range.
        case number(ClosedRange<Double>)
        /// A whole number within the range.
        case integer(ClosedRange<Int>)
        /// An array of up to `count` non-empty strings.
        case strings(count: Int)
    }

    /// The field's name in the request.
    package let name: String
    /// The option it sets, as ``LocalModel/Error/invalidOption(name:reason:)`` names it
    /// (`sampling.topK`, `sampling.repetitionGuard.base`).
    package let option: String
    /// What it takes.
    package let kind: Kind
    /// The field's value in `options`; nil when unset (nothing is sent).
    package let value: @Sendable (CompletionOptions) -> OrderedJSON?
    /// Sets the field in `options` from a value of its kind (a `.number`, `.integer` or `.array`
    /// of `.string`s).
    package let apply: @Sendable (inout CompletionOptions, OrderedJSON) -> Void
}

extension SamplingWireField {
    /// Every field, in the order a request lists them.
    package static let all: [SamplingWireField] = [
        integer("max_tokens", "maximumResponseTokens", 1...(1 << 24), \.maximumResponseTokens),
        seed,
        number("temperature", "sampling.temperature", 0...2, \.sampling.temperature),
        number("top_p", "sampling.topP", 0...1, \.sampling.topP),
        integer("top_k", "sampling.topK", 0...Int(Int32.max), \.sampling.topK),
        number("min_p", "sampling.minP", 0...1, \.sampling.minP),
        number("typical_p", "sampling.typicalP", 0...1, \.sampling.typicalP),
        number("presence_penalty", "sampling.presencePenalty", -2...2, \.sampling.presencePenalty),
        number("frequency_penalty", "sampling.frequencyPenalty", -2...2, \.sampling.frequencyPenalty),
        number("repeat_penalty", "sampling.repetitionPenalty", 0...100, \.sampling.repetitionPenalty),
        integer("repeat_last_n", "sampling.penaltyWindow", -1...Int(Int32.max), \.sampling.penaltyWindow),
    ] + RepetitionGuardFields.all + TopChoiceExclusionFields.all + MirostatFields.all

    static func number(_ name: String, _ option: String, _ range: ClosedRange<Double>,
                       _ path: WritableKeyPath<CompletionOptions, Double?> & Sendable) -> SamplingWireField {
        SamplingWireField(name: name, option: option, kind: .number(range), value: { $0[keyPath: path].map(OrderedJSON.number) },
                          apply: { $0[keyPath: path] = $1.doubleValue })
    }

    static func integer(_ name: String, _ option: String, _ range: ClosedRange<Int>,
                        _ path: WritableKeyPath<CompletionOptions, Int?> & Sendable) -> SamplingWireField {
        SamplingWireField(name: name, option: option, kind: .integer(range), value: { $0[keyPath: path].map(OrderedJSON.integer) },
                          apply: { $0[keyPath: path] = $1.integerValue })
    }

    /// `seed`: any 64-bit integer, folded into the sampler's 32 bits (whose all-ones value means
    /// "random" in llama.cpp); a 32-bit seed is sent and read back as itself.
    static let seed = SamplingWireField(
        name: "seed", option: "sampling.seed", kind: .integer(Int(Int64.min)...Int(Int64.max)),
        value: { $0.sampling.seed.map { .integer(Int($0)) } },
        apply: { options, value in
            guard let seed = value.integerValue else { return }
            let bits = UInt64(bitPattern: Int64(seed))
            let folded = UInt32(truncatingIfNeeded: bits ^ (bits >> 32))
            options.sampling.seed = folded == UInt32.max ? 0 : folded
        })
}

extension OrderedJSON {
    /// A number's value (an integer's too); nil for anything else.
    package var doubleValue: Double? {
        switch self {
        case .number(let number): number
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// An integer's value; nil for anything else.
    package var integerValue: Int? {
        if case .integer(let integer) = self { integer } else { nil }
    }
}

extension SamplingWireField {
    /// The field that sets `option`, as ``LocalModel/Error/invalidOption(name:reason:)`` names it.
    package static func setting(_ option: String) -> SamplingWireField? {
        all.first { $0.option == option }
    }
}
