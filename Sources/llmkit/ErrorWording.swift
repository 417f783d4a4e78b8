import LocalLLMKit

/// How the CLI words the library's errors: in terms of its own flags, not Swift properties.
enum ErrorWording {
    /// The flag that sets each library option, by its canonical name (aliases such as `--temp`
    /// or `-n` become these): each declared ``Flag``'s option, and bench's. Options without a
    /// flag (`batchSize`, `microBatchSize`, `sampling.penaltyWindow`, `sampling.logitBias`) keep
    /// their Swift names.
    static let flags: [String: String] = Dictionary(
        FlagAliases.declared.compactMap { flag in flag.option.map { ($0, flag.name) } }
            + [("repetitions", "--repetitions"), ("test", "--n-prompt/--n-gen")],
        uniquingKeysWith: { first, _ in first })

    /// Whether `error` is one of the library's typed errors (as opposed to a usage or I/O error).
    static func isLibraryError(_ error: any Error) -> Bool {
        error is LocalModel.Error || error is GGUFFile.Error || error is Conversation.Error || error is ChatTemplate.Error
            || error is OutputFormat.Error || error is ModelLibrary.Error || error is MediaAttachment.Error
    }

    /// One line that says what was wrong, naming flags where the library names options.
    static func describe(_ error: any Error) -> String {
        switch error {
        case LocalModel.Error.responseLengthExceedsContext(let maximumTokens, let contextLength):
            return "--max-tokens \(maximumTokens) leaves no room for the prompt: the context holds \(contextLength) "
                + "tokens in all (prompt and answer); lower --max-tokens or raise --context"
        case LocalModel.Error.promptTooLong:
            return error.localizedDescription + " (raise --context, or lower --max-tokens)"
        case LocalModel.Error.invalidOption(let name, let reason), Conversation.Error.invalidConfiguration(let name, let reason):
            return "invalid value for \(flags[name] ?? name): \(reason)"
        case LocalModel.EmbeddingError.inputTooLong(let index, let tokenCount, let limit):
            return "text \(index) has \(tokenCount) tokens, but the model embeds at most \(limit); --truncate cuts such texts to fit"
        case ModelLibrary.Error.notDownloaded(let id):
            return error.localizedDescription + " (llmkit pull \(id))"
        case ModelLibrary.Error.noDefaultModel:
            return error.localizedDescription + " (--model PATH)"
        case ModelLibrary.Error.invalidReference(let reference, let reason) where reason.contains("symbolic link"):
            return "invalid model reference \(reference): \(reason) (import without --move)"
        case ModelLibrary.Error.storageFailed(let path, let reason) where reason.contains("removing the leftovers"):
            return "model library \(path): \(reason) (llmkit pull --clean)"
        default:
            return SystemErrorText.describe(error)
        }
    }
}
