/// The generation parameters of OpenAI's chat and text completions, as both sides of the wire
/// hold them: `RemoteModel` writes them with ``fields()`` and `llmkit serve` reads a request
/// back into this value, so that a test can send every setting and compare what arrives.
package struct GenerationParameters: Sendable, Equatable {
    /// Length, seed and sampling (every field of ``SamplingWireField/all``), stops, the logit bias,
    /// log-probabilities and adapter scales.
    package var options: CompletionOptions
    /// `stream`.
    package var stream: Bool
    /// `stream_options.include_usage`: a last chunk with the usage.
    package var includeUsage: Bool
    /// llama-server's `cache_prompt` (default true): false evaluates the whole prompt again, so
    /// that the same seed gives the same text whatever the cache held.
    package var reusesPromptCache: Bool
    /// OpenAI's `n`: how many choices to generate (each a sequence of its own).
    package var choices: Int

    /// The most choices one request may ask for.
    package static let maximumChoices = 16
    /// The largest `logit_bias` map accepted.
    package static let maximumLogitBiasEntries = 1024

    package init(options: CompletionOptions = CompletionOptions(), stream: Bool = false, includeUsage: Bool = false,
                 reusesPromptCache: Bool = true, choices: Int = 1) {
        self.options = options
        self.stream = stream
        self.includeUsage = includeUsage
        self.reusesPromptCache = reusesPromptCache
        self.choices = choices
    }

    /// The request's fields for these parameters: every field of ``SamplingWireField/all`` that
    /// is set, then `stop`, `logit_bias`, `logprobs` and `top_logprobs`, llama-server's `lora`,
    /// `n` and `cache_prompt` when they differ from their defaults, `stream` and `stream_options`.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` for an option no server has.
    package func fields() throws -> [(String, OrderedJSON)] {
        if options.stopsAtBalancedJSON {
            throw LocalModel.Error.invalidOption(name: "stopsAtBalancedJSON",
                                                 reason: "a server cannot stop at balanced JSON; ask for a JSON Schema format instead")
        }
        var fields = SamplingWireField.all.compactMap { field in field.value(options).map { (field.name, $0) } }
        if !options.stopSequences.isEmpty { fields.append(("stop", .array(options.stopSequences.map(OrderedJSON.string)))) }
        let sampling = options.sampling
        if !sampling.logitBias.isEmpty {
            // OpenAI's range is [-100, 100], where -100 bans the token.
            let biases = sampling.logitBias.sorted { $0.key < $1.key }
                .map { (String($0.key), OrderedJSON.number($0.value.isFinite ? $0.value : -100)) }
            fields.append(("logit_bias", .object(biases)))
        }
        if let alternatives = options.logProbabilityAlternatives {
            fields += [("logprobs", .bool(true)), ("top_logprobs", .integer(alternatives))]
        }
        if let scales = options.adapterScales {
            fields.append(("lora", .array(scales.enumerated().map { index, scale in
                .object([("id", .integer(index)), ("scale", .number(Double(scale)))])
            })))
        }
        if choices != 1 { fields.append(("n", .integer(choices))) }
        if !reusesPromptCache { fields.append(("cache_prompt", .bool(false))) }
        fields.append(("stream", .bool(stream)))
        if includeUsage { fields.append(("stream_options", .object([("include_usage", .bool(true))]))) }
        return fields
    }
}
