extension CompletionOptions.Sampling {
    /// The sampling settings a model file recommends (``GGUFFile/recommendedSampling``): top-choice
    /// exclusion only with a positive probability (its threshold 0.1 unless given), Mirostat only
    /// for versions 1 and 2 (tau 5 and eta 0.1 unless given), as llama.cpp reads these keys.
    public init(recommendedBy recommendation: GGUFFile.SamplingRecommendation) {
        self.init(temperature: recommendation.temperature, topK: recommendation.topK, topP: recommendation.topP,
                  minP: recommendation.minP, repetitionPenalty: recommendation.repetitionPenalty,
                  penaltyWindow: recommendation.penaltyWindow)
        if let probability = recommendation.xtcProbability, probability > 0 {
            topChoiceExclusion = .init(probability: probability, threshold: recommendation.xtcThreshold ?? 0.1)
        }
        if let version = recommendation.mirostat.flatMap(Mirostat.Version.init) {
            mirostat = .init(version: version, tau: recommendation.mirostatTau ?? 5, eta: recommendation.mirostatEta ?? 0.1)
        }
    }
}
