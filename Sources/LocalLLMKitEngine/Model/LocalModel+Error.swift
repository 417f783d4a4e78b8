import Foundation

extension LocalModel {
    /// What can go wrong while loading a model or generating with it.
    ///
    /// Each case names the file, option or value at fault; `errorDescription` says it in one line.
    /// What is wrong with the model file itself (missing, damaged, values llama.cpp would abort on,
    /// split parts) is a ``GGUFFile/Error``, thrown by loading as by the reader.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// llama.cpp could not load the model at `path`, although its header is valid.
        case modelLoadFailed(path: String, reason: String)
        /// llama.cpp could not create an inference context (usually too little memory).
        case contextCreationFailed(reason: String)
        /// The model at `path` loads, but cannot generate text (an embedding model such as
        /// BERT); `reason` says why. ``LocalModel/embeddings(for:options:)`` works with it.
        case cannotGenerate(path: String, reason: String)
        /// A configuration or generation option has a value that cannot work; `name` is the
        /// option's property path, such as `sampling.topP`.
        case invalidOption(name: String, reason: String)
        /// The LoRA adapter at `path` cannot apply to the model (``LocalModel/Configuration/Weights/adapters``):
        /// not an adapter, another architecture, shapes that do not fit, a NaN alpha…; `reason` says which.
        case invalidAdapter(path: String, reason: String)
        /// The control vector at `path` cannot steer the model (``LocalModel/Configuration/Weights/controlVectors``):
        /// not directions, another width, a layer the model lacks, a NaN…; `reason` says which.
        case invalidControlVector(path: String, reason: String)
        /// The prompt has `tokens` tokens but at most `limit` fit in the context
        /// once room for the answer is reserved.
        case promptTooLong(tokens: Int, limit: Int)
        /// `maximumResponseTokens` leaves no room for a prompt: the context holds
        /// `contextLength` tokens in all.
        case responseLengthExceedsContext(maximumResponseTokens: Int, contextLength: Int)
        /// The prompt produced no tokens to evaluate.
        case emptyPrompt
        /// A token id outside the model's vocabulary.
        case invalidToken(Int32, vocabularySize: Int)
        /// The tokenizer failed on the given text.
        case tokenizationFailed(reason: String)
        /// `llama_decode` failed with the given return code.
        case decodeFailed(code: Int32, reason: String)
        /// The sampler could not be built or could not sample.
        case samplingFailed(reason: String)
        /// Every sequence was generating and `queuedRequests` requests were already waiting
        /// (``LocalModel/Configuration/Serving/maximumQueuedRequests``): try again later.
        case busy(queuedRequests: Int)
        /// The draft model at `path` cannot draft for this model: `reason` says how their
        /// vocabularies differ (speculation needs the same tokens).
        case incompatibleDraftModel(path: String, reason: String)
        /// Speculation cannot work with this model: `reason` says why (a recurrent model's
        /// cache cannot drop a rejected draft).
        case speculationUnsupported(reason: String)
        /// With ``Configuration/MemoryFit``: the model does not fit this machine's memory even at
        /// the smallest context and with the fewest GPU layers fitting may choose. `device` is
        /// the one that runs out (`Host` for the machine's memory); `required` is what it would
        /// hold, margin included, and `available` what it has (bytes).
        case insufficientMemory(path: String, device: String, required: Int64, available: Int64)
        /// A server of ``LocalModel/Configuration/Weights/rpcServers`` could not be reached, or does not speak
        /// llama.cpp's RPC protocol of this version; `reason` says which.
        case remoteServerUnreachable(endpoint: String, reason: String)
        /// A server of ``LocalModel/Configuration/Weights/rpcServers`` went away while the model used it (its
        /// connection closed or failed). The model cannot generate any more: load it again
        /// once the server is back.
        case remoteDeviceLost(endpoint: String, reason: String)
        /// A request carries images or audio, but the model was loaded without a projector.
        case noProjector(path: String)
        /// The projector file (``LocalModel/Configuration/Weights/projector``) cannot be used with this model;
        /// `reason` says why (not a projector, damaged, made for a model of another width).
        case invalidProjector(path: String, reason: String)
    }
}

extension LocalModel.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .modelLoadFailed(let path, let reason):
            return "could not load model \(path): \(reason)"
        case .contextCreationFailed(let reason):
            return "could not create an inference context: \(reason)"
        case .cannotGenerate(let path, let reason):
            return "model \(path) cannot generate text: \(reason)"
        case .invalidOption(let name, let reason):
            return "invalid value for \(name): \(reason)"
        case .invalidAdapter(let path, let reason):
            return "cannot apply the adapter \(path): \(reason)"
        case .invalidControlVector(let path, let reason):
            return "cannot apply the control vector \(path): \(reason)"
        case .promptTooLong(let tokens, let limit):
            return "prompt too long: \(tokens) tokens, but at most \(max(limit, 0)) fit in the context with room for the answer"
        case .responseLengthExceedsContext(let maximumResponseTokens, let contextLength):
            return "maximumResponseTokens is \(maximumResponseTokens), but the context holds \(contextLength) tokens in all "
                + "(prompt and answer); ask for fewer tokens or a longer context"
        case .emptyPrompt:
            return "the prompt is empty: there is nothing to evaluate"
        case .invalidToken(let token, let size):
            return "token id \(token) is outside the vocabulary (0..<\(size))"
        case .tokenizationFailed(let reason):
            return "tokenization failed: \(reason)"
        case .decodeFailed(let code, let reason):
            return "llama_decode failed (code \(code)): \(reason)"
        case .samplingFailed(let reason):
            return "sampling failed: \(reason)"
        case .busy(let queued):
            return "the model is busy: every sequence is generating and \(queued) requests are already waiting"
        case .incompatibleDraftModel(let path, let reason):
            return "draft model \(path) cannot draft for this model: \(reason)"
        case .speculationUnsupported(let reason):
            return "speculative decoding cannot work with this model: \(reason)"
        case .insufficientMemory(let path, let device, let required, let available):
            return "model \(path) does not fit in memory: \(device) would need \(mebibytes(required)) (its margin included), "
                + "but has \(mebibytes(available)) available"
        case .remoteServerUnreachable(let endpoint, let reason):
            return "RPC server \(endpoint) cannot be used: \(reason)"
        case .remoteDeviceLost(let endpoint, let reason):
            return "RPC server \(endpoint) was lost (\(reason)); load the model again once it is back"
        case .noProjector(let path):
            return "model \(path) has no projector, so it cannot take images or audio: load it with one (an mmproj GGUF beside it, or --mmproj)"
        case .invalidProjector(let path, let reason):
            return "projector \(path) cannot be used: \(reason)"
        }
    }
}
