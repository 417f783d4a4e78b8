import LocalLLMKit

/// How the CLI words the library's errors: in terms of its own flags, not Swift properties.
enum ErrorWording {
    /// The flag that sets each library option.
    static let flags = [
        "maximumTokens": "--max-tokens", "temperature": "--temperature", "topK": "--top-k", "topP": "--top-p",
        "minP": "--min-p", "repetitionPenalty": "--repeat-penalty", "presencePenalty": "--presence-penalty",
        "frequencyPenalty": "--frequency-penalty", "seed": "--seed", "stopSequences": "--stop",
        "thinkingBudget": "--thinking-budget", "maximumToolRounds": "--max-tool-rounds",
        "contextLength": "--context", "threads": "--threads", "gpuLayers": "--gpu-layers",
    ]

    /// One line that says what was wrong, naming flags where the library names options.
    static func describe(_ error: any Error) -> String {
        switch error as? LLMKitError {
        case .maximumTokensExceedContext(let maximumTokens, let contextLength)?:
            return "--max-tokens \(maximumTokens) leaves no room for the prompt: the context holds \(contextLength) "
                + "tokens in all (prompt and answer); lower --max-tokens or raise --context"
        case .invalidOption(let name, let reason)?:
            return "invalid value for \(flags[name] ?? name): \(reason)"
        default:
            return error.localizedDescription
        }
    }
}
