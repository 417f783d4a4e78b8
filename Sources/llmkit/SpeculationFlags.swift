import Foundation
import LocalLLMKit

/// The speculative-decoding flags of `run`, `chat`, `bench` and `serve`.
enum SpeculationFlags {
    /// The value options it adds to a command.
    static let valueOptions: Set<String> = ["--draft-model", "--draft-max"]
    /// The flags it adds to a command.
    static let flagOptions: Set<String> = ["--lookup", "--mtp"]
    /// Their help text.
    static let help = """
      -md, --draft-model M a smaller model with the same vocabulary drafts tokens that the model checks
                           in one step (speculative decoding: the model's own draws still decide every token);
                           a path or library name
      --lookup             draft from the prompt and the output so far instead (n-gram lookup; no
                           second model): for answers that repeat their input, such as edited code
      --mtp                draft with the model's own next-token-prediction layers (multi-token
                           prediction; models such as MiMo, GLM-4.5, DeepSeek-V3 carry them)
      --draft-max N        the most tokens drafted for one step (default: 3 with --draft-model or
                           --mtp, as llama.cpp; 16 with --lookup)
    """

    /// The speculation the flags ask for; ``LocalModel/Configuration/Speculation/none`` without them.
    /// - Throws: ``UsageError`` for more than one of `--lookup`, `--draft-model` and `--mtp`, or
    ///   `--draft-max` with none of them.
    static func speculation(_ arguments: ParsedArguments) async throws -> LocalModel.Configuration.Speculation {
        let maximum = try arguments.integer("--draft-max", in: 1...256)
        let draftModel = arguments.value("--draft-model")
        let chosen = [draftModel != nil, arguments.has("--lookup"), arguments.has("--mtp")].count(where: { $0 })
        guard chosen <= 1 else {
            throw UsageError(message: "--lookup, --draft-model and --mtp are kinds of speculation: choose one")
        }
        if let draftModel {
            return .draftModel(at: try await ModelOptions.locate(draftModel), maximumDraft: maximum ?? 3)
        }
        if arguments.has("--lookup") { return .promptLookup(maximumDraft: maximum ?? 16) }
        if arguments.has("--mtp") { return .multiTokenPrediction(maximumDraft: maximum ?? 3) }
        if maximum != nil { throw UsageError(message: "--draft-max needs --draft-model, --lookup or --mtp") }
        return .none
    }
}
