import LocalLLMKitEngine

/// Sampling settings that, between them, take each of the sampler bridge's ways to draw on the
/// reference model (Gemma 3 270M's token ids): the chain over the likeliest candidates with and
/// without penalties and a logit bias, the arg-max, and greedy through the chain. Tests that
/// compare the bridge's shortcuts with the whole vocabulary run them all.
package enum SamplingCases {
    /// The settings; the last three are greedy, and only the first of those takes the arg-max path.
    package static let all: [CompletionOptions.Sampling] = [
        .init(temperature: 1.0, seed: 1),
        .init(temperature: 0.8, topK: 20, topP: 0.9, seed: 2),
        .init(temperature: 1.2, topK: 60, minP: 0.02, repetitionPenalty: 1.2, presencePenalty: 0.5, seed: 3),
        .init(temperature: 1.0, seed: 4, logitBias: [236761: 5, 506: -3]),
        .greedy,                                                    // the arg-max, without the chain
        .init(temperature: 0, repetitionPenalty: 1.3),              // greedy through the chain
        .init(temperature: 0, logitBias: [236761: 3, 506: -2]),
    ]
}
