import LocalLLMKit

/// The generation parameters shared by chat and text completions, checked the way OpenAI checks
/// them, as the library's ``CompletionOptions``. Parameters this server cannot honour (`n` > 1,
/// `logprobs`, `best_of` > 1) are refused with a 400 that names them, not silently ignored.
struct GenerationParameters {
    var options: CompletionOptions
    var stream: Bool
    var includeUsage: Bool
    /// llama-server's `cache_prompt` (default true): false evaluates the whole prompt again, so
    /// that the same seed gives the same text whatever the cache held.
    var reusesPromptCache: Bool

    /// The largest `logit_bias` map accepted.
    static let maximumLogitBiasEntries = 1024

    init(_ body: RequestBody, vocabularySize: Int) throws(APIError) {
        var options = CompletionOptions()
        var sampling = CompletionOptions.Sampling()
        sampling.temperature = try body.number("temperature", in: 0...2)
        sampling.topP = try body.number("top_p", in: 0...1)
        sampling.presencePenalty = try body.number("presence_penalty", in: -2...2)
        sampling.frequencyPenalty = try body.number("frequency_penalty", in: -2...2)
        if let seed = try body.integer("seed", in: Int(Int64.min)...Int(Int64.max)) {
            // Any 64-bit seed, folded into the sampler's 32 bits (0xFFFFFFFF means "random" there).
            let folded = UInt32(truncatingIfNeeded: UInt64(bitPattern: Int64(seed)) ^ (UInt64(bitPattern: Int64(seed)) >> 32))
            sampling.seed = folded == UInt32.max ? 0 : folded
        }
        if let bias = try body.object("logit_bias") {
            guard bias.fields.count <= Self.maximumLogitBiasEntries else {
                throw .invalid("'logit_bias' has more than \(Self.maximumLogitBiasEntries) entries.", param: "logit_bias")
            }
            for (key, _) in bias.fields {
                guard let token = Int32(key), token >= 0, Int(token) < vocabularySize else {
                    throw .invalid("'logit_bias' key \(key) is not a token id of this model (0..<\(vocabularySize)).", param: "logit_bias")
                }
                sampling.logitBias[token] = try bias.number(key, in: -100...100, label: "logit_bias[\(key)]", param: "logit_bias") ?? 0
            }
        }
        options.sampling = sampling
        options.maximumResponseTokens = try body.integer("max_completion_tokens", in: 1...(1 << 24))
        if options.maximumResponseTokens == nil {
            options.maximumResponseTokens = try body.integer("max_tokens", in: 1...(1 << 24))
        }
        options.stopSequences = try body.stopSequences()
        if let n = try body.integer("n", in: 1...128), n != 1 {
            throw .invalid("'n' must be 1: this server returns one choice per request.", param: "n")
        }
        if let best = try body.integer("best_of", in: 1...128), best != 1 {
            throw .invalid("'best_of' must be 1.", param: "best_of")
        }
        switch body["logprobs"] {
        case nil, .bool(false)?, .integer(0)?: break
        case .bool(true)?, .integer?: throw .invalid("'logprobs' is not supported by this server.", param: "logprobs")
        default: throw .invalid("'logprobs' must be a boolean (chat) or an integer (completions).", param: "logprobs")
        }
        if try body.bool("echo") == true {
            throw .invalid("'echo' is not supported by this server.", param: "echo")
        }
        self.options = options
        stream = try body.bool("stream") ?? false
        includeUsage = try body.object("stream_options")?.bool("include_usage") ?? false
        reusesPromptCache = try body.bool("cache_prompt") ?? true
    }
}
