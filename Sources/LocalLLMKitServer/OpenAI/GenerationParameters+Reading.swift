import LocalLLMKit

/// Reading the generation parameters shared by chat and text completions, checked the way
/// OpenAI checks them: every field of ``SamplingWireField/all`` (the table `RemoteModel` writes
/// from), then `max_completion_tokens`, `logit_bias`, `stop` and llama-server's `lora` (see
/// ``AdapterScaleList``). Parameters this server cannot honour (`best_of` > 1, `echo`) are
/// refused with a 400 that names them, not silently ignored.
extension GenerationParameters {
    /// - Parameter adapterCount: the model's LoRA adapters, for llama-server's `lora` field.
    init(_ body: RequestBody, vocabularySize: Int, adapterCount: Int = 0) throws(APIError) {
        var options = CompletionOptions()
        for field in SamplingWireField.all {
            if let value = try body.value(of: field) { field.apply(&options, value) }
        }
        if let maximum = try body.integer("max_completion_tokens", in: 1...(1 << 24)) {
            options.maximumResponseTokens = maximum
        }
        if let bias = try body.object("logit_bias") {
            guard bias.fields.count <= Self.maximumLogitBiasEntries else {
                throw .invalid("'logit_bias' has more than \(Self.maximumLogitBiasEntries) entries.", param: "logit_bias")
            }
            for (key, _) in bias.fields {
                guard let token = Int32(key), token >= 0, Int(token) < vocabularySize else {
                    throw .invalid("'logit_bias' key \(key) is not a token id of this model (0..<\(vocabularySize)).", param: "logit_bias")
                }
                options.sampling.logitBias[token] = try bias.number(key, in: -100...100, label: "logit_bias[\(key)]", param: "logit_bias") ?? 0
            }
        }
        do {
            try options.sampling.validate()
        } catch LocalModel.Error.invalidOption(let name, let reason) {
            let field = SamplingWireField.setting(name)?.name ?? name
            throw .invalid("'\(field)' cannot be used: \(reason).", param: field)
        } catch {
            throw APIError(error)
        }
        options.stopSequences = try body.stopSequences()
        let choices = try body.integer("n", in: 1...Self.maximumChoices) ?? 1
        if let best = try body.integer("best_of", in: 1...128), best != 1 {
            throw .invalid("'best_of' must be 1.", param: "best_of")
        }
        options.logProbabilityAlternatives = try Self.logProbabilities(body)
        // An empty list is the model's scales, as llama-server takes it (it lists no change).
        if let value = body["lora"], value != .array([]) {
            options.adapterScales = try AdapterScaleList.scales(value, adapterCount: adapterCount, param: "lora")
        }
        if try body.bool("echo") == true {
            throw .invalid("'echo' is not supported by this server.", param: "echo")
        }
        self.init(options: options, stream: try body.bool("stream") ?? false,
                  includeUsage: try body.object("stream_options")?.bool("include_usage") ?? false,
                  reusesPromptCache: try body.bool("cache_prompt") ?? true, choices: choices)
    }

    /// `logprobs`: chat's `true` with `top_logprobs` (0 … 20, default 0), or completions' number
    /// of alternatives; `top_logprobs` without `logprobs` is a 400, as with llama-server.
    private static func logProbabilities(_ body: RequestBody) throws(APIError) -> Int? {
        let limit = CompletionOptions.maximumLogProbabilityAlternatives
        let top = try body.integer("top_logprobs", in: 0...limit)
        switch body["logprobs"] {
        case nil, .bool(false)?:
            guard top == nil else { throw .invalid("'top_logprobs' requires 'logprobs' to be true.", param: "top_logprobs") }
            return nil
        case .bool(true)?:
            return top ?? 0
        case .integer?:
            return try body.integer("logprobs", in: 0...limit)
        default:
            throw .invalid("'logprobs' must be a boolean (chat) or an integer (completions).", param: "logprobs")
        }
    }
}
