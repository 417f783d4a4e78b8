extension LocalModel {
    /// The scale of each LoRA adapter (``LocalModel/Configuration/Weights/adapters``, in that order) that requests
    /// naming none of their own (``CompletionOptions/adapterScales``) generate with: the
    /// configuration's, until ``setAdapterScales(_:)`` changes them.
    public var adapterScales: [Float] {
        existingScheduler?.defaultAdapterScales ?? configuration.weights.adapters.map(\.scale)
    }

    /// Changes the scales of the model's LoRA adapters for the requests that follow and name no
    /// scales of their own (llama-server's `POST /lora-adapters`); requests already generating
    /// keep theirs. Embeddings keep the configuration's scales.
    /// - Parameter scales: one per adapter of ``LocalModel/Configuration/Weights/adapters``, in that order; 0 turns one off.
    /// - Throws: ``LocalModel/Error/invalidOption(name:reason:)`` for another count or a scale
    ///   that is not a finite number; ``LocalModel/Error/contextCreationFailed(reason:)``.
    public func setAdapterScales(_ scales: [Float]) throws {
        guard scales.count == configuration.weights.adapters.count else {
            throw Error.invalidOption(name: "adapterScales",
                                      reason: "it has \(scales.count) scales, but the model has \(configuration.weights.adapters.count) adapters")
        }
        if let bad = scales.firstIndex(where: { !$0.isFinite }) {
            throw Error.invalidOption(name: "adapterScales[\(bad)]", reason: "\(scales[bad]) is not a finite number")
        }
        try scheduler().defaultAdapterScales = scales
    }
}
