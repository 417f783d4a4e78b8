import CLlama
import CLlamaEngineBridge

/// llama.cpp's `common_sampler`, through the C++ bridge: penalties, DRY, top-k, typical-p,
/// top-p, min-p, XTC, temperature and the final draw (or Mirostat), in llama.cpp's own order.
package final class Sampler {
    private let pointer: OpaquePointer
    /// The model whose vocabulary and token classes the sampler reads: kept alive as long as it.
    private let model: ModelHandle

    /// Builds a sampler for `model` from fully resolved settings and one constraint.
    /// - Throws: ``LocalModel/Error/samplingFailed(reason:)``.
    package init(model: ModelHandle, sampling: CompletionOptions.Sampling, constraint: SamplingConstraint = .none,
         thinking: ThinkingBudget? = nil, exhaustive: Bool = false) throws {
        var params = llmkit_sampling_defaults()
        params.exhaustive = exhaustive
        params.token_classes = model.tokenClasses
        if let seed = sampling.seed { params.seed = seed }
        if let value = sampling.temperature { params.temperature = Float(value) }
        if let value = sampling.topK { params.top_k = Int32(clamping: value) }
        if let value = sampling.topP { params.top_p = Float(value) }
        if let value = sampling.minP { params.min_p = Float(value) }
        if let value = sampling.penaltyWindow { params.penalty_last_n = Int32(clamping: value) }
        if let value = sampling.repetitionPenalty { params.penalty_repeat = Float(value) }
        if let value = sampling.presencePenalty { params.penalty_presence = Float(value) }
        if let value = sampling.frequencyPenalty { params.penalty_frequency = Float(value) }
        if let value = sampling.typicalP { params.typical_p = Float(value) }
        let storage = CStringStorage()
        if let exclusion = sampling.topChoiceExclusion {
            params.xtc_probability = Float(exclusion.probability)
            params.xtc_threshold = Float(exclusion.threshold)
        }
        if let repetition = sampling.repetitionGuard {
            params.dry_multiplier = Float(repetition.multiplier)
            params.dry_base = Float(repetition.base)
            params.dry_allowed_length = Int32(clamping: repetition.allowedLength)
            params.dry_penalty_last_n = Int32(clamping: repetition.window)
            // No breakers at all is a choice of its own: a non-NULL list of none (NULL means llama.cpp's).
            let breakers = repetition.sequenceBreakers
            params.dry_sequence_breakers = breakers.isEmpty ? storage.strings([""]) : storage.strings(breakers)
            params.dry_sequence_breaker_count = Int32(repetition.sequenceBreakers.count)
        }
        if let mirostat = sampling.mirostat {
            params.mirostat = Int32(mirostat.version.rawValue)
            params.mirostat_tau = Float(mirostat.tau)
            params.mirostat_eta = Float(mirostat.eta)
        }
        let biasTokens = Array(sampling.logitBias.keys)
        params.logit_bias_tokens = storage.array(biasTokens)
        params.logit_bias_values = storage.array(biasTokens.map { Float(sampling.logitBias[$0]!) })
        params.logit_bias_count = Int32(biasTokens.count)
        switch constraint {
        case .none:
            break
        case .grammar(let grammar):
            params.grammar = storage.string(grammar)
        case .continuation(let grammar, let triggers, let preserved):
            params.continuation_grammar = storage.string(grammar)
            params.trigger_kinds = storage.array(triggers.map(\.kind.rawValue))
            params.trigger_values = storage.strings(triggers.map(\.value))
            params.trigger_count = Int32(triggers.count)
            params.preserved_tokens = storage.array(preserved.sorted())
            params.preserved_token_count = Int32(preserved.count)
        }
        if let thinking {
            params.generation_prompt = storage.string(thinking.generationPrompt)
            if let budget = thinking.tokens, let start = thinking.startTag, !thinking.endTags.isEmpty {
                params.reasoning_budget = Int32(clamping: budget)
                params.reasoning_start_tag = storage.string(start)
                params.reasoning_end_tags = storage.strings(thinking.endTags)
                params.reasoning_end_tag_count = Int32(thinking.endTags.count)
                params.reasoning_budget_message = storage.string(thinking.message)
            }
        }
        var error: llmkit_error?
        let sampler = withExtendedLifetime(storage) { llmkit_sampler_create(model.pointer, &params, &error) }
        guard let sampler else {
            throw LocalModel.Error.samplingFailed(reason: Bridge.take(error) ?? "unknown error")
        }
        pointer = sampler
        self.model = model
        samplesFromLogits = llmkit_sampler_samples_logits(sampler)
        isGreedy = llmkit_sampler_is_greedy(sampler)
    }

    deinit {
        llmkit_sampler_free(pointer)
    }

    /// Whether ``sampleAndAccept(logits:vocabularySize:)`` works: a top-k sampler without a
    /// continuation grammar or thinking budget (an output grammar is fine). Such samplers touch
    /// nothing shared but the vocabulary, read only, so several can sample on different threads at once.
    package let samplesFromLogits: Bool

    /// Whether it samples the arg-max of the logits (greedy, nothing that can lower the likeliest
    /// token): a draw then costs a pass over the logits and no more.
    package let isGreedy: Bool

    /// Samples the next token from `logits` (one step's logits for this sequence), and records it.
    package func sampleAndAccept(logits: UnsafePointer<Float>, vocabularySize: Int) throws -> Int32 {
        var error: llmkit_error?
        let token = llmkit_sampler_sample_logits(pointer, logits, Int32(vocabularySize), &error)
        if let message = Bridge.take(error) { throw LocalModel.Error.samplingFailed(reason: message) }
        guard llmkit_sampler_accept(pointer, token, &error) else {
            throw LocalModel.Error.samplingFailed(reason: Bridge.take(error) ?? "the token was rejected")
        }
        return token
    }

    /// The text the output grammar allows next, at most `maximumCharacters`: where it allows one
    /// character, or a few of which the text accepted so far shows the likely one (optional
    /// whitespace). Empty without an output grammar, or where the grammar leaves a choice.
    /// - Throws: ``LocalModel/Error/samplingFailed(reason:)``.
    package func grammarDraft(maximumCharacters: Int) throws -> String {
        let capacity = 4 * maximumCharacters
        var bytes = [CChar](repeating: 0, count: capacity)
        var error: llmkit_error?
        let length = llmkit_sampler_grammar_draft(pointer, Int32(clamping: maximumCharacters), &bytes, Int32(clamping: capacity), &error)
        guard length >= 0 else { throw LocalModel.Error.samplingFailed(reason: Bridge.take(error) ?? "the grammar draft failed") }
        return String(decoding: bytes.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Records `token` as generated (penalties and grammar state) without sampling it.
    /// - Throws: ``LocalModel/Error/samplingFailed(reason:)`` for a token the grammar rejects.
    package func accept(_ token: Int32) throws {
        var error: llmkit_error?
        guard llmkit_sampler_accept(pointer, token, &error) else {
            throw LocalModel.Error.samplingFailed(reason: Bridge.take(error) ?? "the token was rejected")
        }
    }

    /// The seed in use.
    package var seed: UInt32 { llmkit_sampler_seed(pointer) }

    /// Samples the next token from the logits at `index` of the last batch (-1: its last
    /// logits), and records it.
    package func sampleAndAccept(from context: InferenceContext, index: Int32 = -1) throws -> Int32 {
        var error: llmkit_error?
        let token = llmkit_sampler_sample(pointer, context.pointer, index, &error)
        if let message = Bridge.take(error) { throw LocalModel.Error.samplingFailed(reason: message) }
        guard llmkit_sampler_accept(pointer, token, &error) else {
            throw LocalModel.Error.samplingFailed(reason: Bridge.take(error) ?? "the token was rejected")
        }
        return token
    }
}
