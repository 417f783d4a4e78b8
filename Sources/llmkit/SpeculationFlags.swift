import Foundation
import LocalLLMKit

/// The speculative-decoding flags of `run`, `chat`, `bench` and `serve`.
enum SpeculationFlags {
    /// The value options it adds to a command.
    static let valueOptions: Set<String> = ["--draft-model", "--draft-max"]
    /// The flags it adds to a command.
    static let flagOptions: Set<String> = ["--lookup"]
    /// Their help text.
    static let help = """
      -md, --draft-model M a smaller model with the same vocabulary drafts tokens that the model checks
                           in one step (speculative decoding: the model's own draws still decide every token);
                           a path or library name
      --lookup             draft from the prompt and the output so far instead (n-gram lookup; no
                           second model): for answers that repeat their input, such as edited code
      --draft-max N        the most tokens drafted for one step (default: 3 with --draft-model, as
                           llama.cpp; 16 with --lookup)
    """

    /// The speculation the flags ask for; ``LocalModel/Configuration/Speculation/none`` without them.
    /// - Throws: ``UsageError`` for `--lookup` with `--draft-model`, or `--draft-max` with neither.
    static func speculation(_ arguments: ParsedArguments) async throws -> LocalModel.Configuration.Speculation {
        let maximum = try arguments.integer("--draft-max", in: 1...256)
        switch (arguments.value("--draft-model"), arguments.has("--lookup")) {
        case (.some, true):
            throw UsageError(message: "--lookup and --draft-model are two kinds of speculation: choose one")
        case (.some(let name), false):
            return .draftModel(at: try await ModelOptions.locate(name), maximumDraft: maximum ?? 3)
        case (nil, true):
            return .promptLookup(maximumDraft: maximum ?? 16)
        case (nil, false):
            if maximum != nil { throw UsageError(message: "--draft-max needs --draft-model or --lookup") }
            return .none
        }
    }
}
