import CLlama
import CLlamaBridge

/// llama.cpp's `common_sampler`, through the C++ bridge: penalties, top-k, top-p,
/// min-p, temperature and the final draw, in llama.cpp's own order.
final class Sampler {
    private let pointer: OpaquePointer

    /// Builds a sampler for `model` from fully resolved options.
    /// - Throws: ``LLMKitError/samplingFailed(reason:)``.
    init(model: ModelHandle, options: CompletionOptions) throws {
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
        let biasTokens = Array(options.logitBias.keys)
        let biasValues = biasTokens.map { Float(options.logitBias[$0]!) }
        var error: llmkit_error?
        let sampler = biasTokens.withUnsafeBufferPointer { tokens in
            biasValues.withUnsafeBufferPointer { values in
                params.logit_bias_tokens = tokens.baseAddress
                params.logit_bias_values = values.baseAddress
                params.logit_bias_count = Int32(tokens.count)
                return llmkit_sampler_create(model.pointer, &params, &error)
            }
        }
        guard let sampler else {
            throw LLMKitError.samplingFailed(reason: Self.take(error) ?? "unknown error")
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
        if let message = Self.take(error) { throw LLMKitError.samplingFailed(reason: message) }
        guard llmkit_sampler_accept(pointer, token, &error) else {
            throw LLMKitError.samplingFailed(reason: Self.take(error) ?? "the token was rejected")
        }
        return token
    }

    /// Converts and frees a bridge error string.
    static func take(_ error: llmkit_error?) -> String? {
        guard let error else { return nil }
        defer { llmkit_string_free(error) }
        return String(cString: error)
    }
}
