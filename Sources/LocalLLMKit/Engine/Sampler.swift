import CLlama
import CLlamaBridge

/// llama.cpp's `common_sampler`, through the C++ bridge: penalties, top-k, top-p,
/// min-p, temperature and the final draw, in llama.cpp's own order.
final class Sampler {
    private let pointer: OpaquePointer

    /// Builds a sampler for `model` from fully resolved options.
    /// - Throws: ``LLMKitError/samplingFailed(reason:)``.
    /// - Parameters:
    ///   - grammar: a GBNF grammar for the whole output (structured output).
    ///   - thinking: the template's thinking tags and the thinking budget.
    ///   - chat: a rendered chat prompt whose tool-call grammar (lazy, with triggers) applies.
    init(model: ModelHandle, options: CompletionOptions, grammar: String? = nil, thinking: ThinkingControl? = nil,
         chat: ChatRenderHandle? = nil) throws {
        var params = llmkit_sampling_defaults()
        if let seed = options.seed { params.seed = seed }
        if let value = options.temperature { params.temperature = Float(value) }
        if let value = options.topK { params.top_k = Int32(clamping: value) }
        if let value = options.topP { params.top_p = Float(value) }
        if let value = options.minP { params.min_p = Float(value) }
        if let value = options.penaltyWindow { params.penalty_last_n = Int32(clamping: value) }
        if let value = options.repetitionPenalty { params.penalty_repeat = Float(value) }
        if let value = options.presencePenalty { params.penalty_presence = Float(value) }
        if let value = options.frequencyPenalty { params.penalty_frequency = Float(value) }
        let storage = CStringStorage()
        params.grammar = storage.string(grammar)
        let biasTokens = Array(options.logitBias.keys)
        params.logit_bias_tokens = storage.array(biasTokens)
        params.logit_bias_values = storage.array(biasTokens.map { Float(options.logitBias[$0]!) })
        params.logit_bias_count = Int32(biasTokens.count)
        if let thinking {
            params.generation_prompt = storage.string(thinking.generationPrompt)
            if let budget = thinking.budget, let start = thinking.startTag, !thinking.endTags.isEmpty {
                params.reasoning_budget = Int32(clamping: budget)
                params.reasoning_start_tag = storage.string(start)
                params.reasoning_end_tags = storage.strings(thinking.endTags)
                params.reasoning_end_tag_count = Int32(thinking.endTags.count)
                params.reasoning_budget_message = storage.string(thinking.message)
            }
        }
        params.chat = chat?.pointer
        var error: llmkit_error?
        let sampler = withExtendedLifetime((storage, chat)) { llmkit_sampler_create(model.pointer, &params, &error) }
        guard let sampler else {
            throw LLMKitError.samplingFailed(reason: Bridge.take(error) ?? "unknown error")
        }
        pointer = sampler
    }

    deinit {
        llmkit_sampler_free(pointer)
    }

    /// The seed in use.
    var seed: UInt32 { llmkit_sampler_seed(pointer) }

    /// Samples the next token from the last logits of `context`, and records it.
    func sampleAndAccept(from context: InferenceContext) throws -> Int32 {
        var error: llmkit_error?
        let token = llmkit_sampler_sample(pointer, context.pointer, -1, &error)
        if let message = Bridge.take(error) { throw LLMKitError.samplingFailed(reason: message) }
        guard llmkit_sampler_accept(pointer, token, &error) else {
            throw LLMKitError.samplingFailed(reason: Bridge.take(error) ?? "the token was rejected")
        }
        return token
    }
}

/// What a chat template tells the sampler about thinking.
struct ThinkingControl {
    /// The assistant prefix at the end of the prompt; it may already open a thinking block.
    var generationPrompt: String
    /// Tokens allowed inside the thinking block; nil for no cap.
    var budget: Int?
    /// The tag that opens a thinking block.
    var startTag: String?
    /// The tags that close it; the first is forced when the budget runs out.
    var endTags: [String]
    /// Inserted before the forced end tag.
    var message: String?
}
