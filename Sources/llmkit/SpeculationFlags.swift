import Foundation
import LocalLLMKit

/// The speculative-decoding flags of `run`, `chat`, `bench` and `serve`.
enum SpeculationFlags {
    /// The flags.
    static let all: [Flag] = [
        Flag("--draft-model", "-md", "--model-draft", value: "M", help: """
            a smaller model with the same vocabulary drafts tokens that the model checks
            in one step (speculative decoding: the model's own draws still decide every token);
            a path or library name
            """),
        Flag("--lookup", help: """
            draft from the prompt and the output so far instead (n-gram lookup; no
            second model): for answers that repeat their input, such as edited code
            """),
        Flag("--mtp", help: """
            draft with the model's own next-token-prediction layers (multi-token
            prediction; models such as MiMo, GLM-4.5, DeepSeek-V3 carry them)
            """),
        Flag("--draft-max", "--spec-draft-n-max", value: "N", help: """
            the most tokens drafted for one step (default: 3 with --draft-model or
            --mtp, as llama.cpp; 16 with --lookup)
            """),
        Flag("--fixed-draft", help: """
            check every drafted token, as llama.cpp does; by default a step checks as
            much of a draft as pays for itself, measured as it generates (also for the
            drafts of an output format: the text its grammar allows next)
            """),
        Flag("--inexact-greedy", help: """
            let a greedy request check drafts longer than the CPU computes exactly as one
            token (as llama.cpp does): faster, but a near tie may then differ from plain
            decoding; by default greedy answers are plain decoding's, token for token
            """),
    ]

    /// Their help text.
    static var help: String { Flag.help(all) }

    /// The speculation the flags ask for; ``LocalModel/Configuration/Speculation/none`` without them.
    /// - Parameter constrainsOutput: whether requests may have an output format, whose grammar
    ///   drafts `--fixed-draft` and `--inexact-greedy` also change (nil: whether `--schema`,
    ///   `--json-schema`, `--grammar` or `--format` is given).
    /// - Throws: ``UsageError`` for more than one of `--lookup`, `--draft-model` and `--mtp`,
    ///   `--draft-max` with none of them, or `--fixed-draft` or `--inexact-greedy` with none of
    ///   them and no output format.
    static func speculation(_ arguments: ParsedArguments, constrainsOutput: Bool? = nil) async throws
        -> LocalModel.Configuration.Speculation {
        let maximum = try arguments.integer("--draft-max", in: 1...256)
        let draftModel = arguments.value("--draft-model")
        let chosen = [draftModel != nil, arguments.has("--lookup"), arguments.has("--mtp")].count(where: { $0 })
        guard chosen <= 1 else {
            throw UsageError(message: "--lookup, --draft-model and --mtp are kinds of speculation: choose one")
        }
        var speculation: LocalModel.Configuration.Speculation
        if let draftModel {
            speculation = .draftModel(at: try await ModelOptions.locate(draftModel), maximumDraft: maximum ?? 3)
        } else if arguments.has("--lookup") {
            speculation = .promptLookup(maximumDraft: maximum ?? 16)
        } else if arguments.has("--mtp") {
            speculation = .multiTokenPrediction(maximumDraft: maximum ?? 3)
        } else {
            if maximum != nil { throw UsageError(message: "--draft-max needs --draft-model, --lookup or --mtp") }
            let formatted = constrainsOutput ?? ["--schema", "--json-schema", "--grammar", "--format"].contains { arguments.value($0) != nil }
            for flag in ["--fixed-draft", "--inexact-greedy"] where arguments.has(flag) && !formatted {
                throw UsageError(message: "\(flag) needs --draft-model, --lookup, --mtp or an output format (--schema, --json-schema, --grammar, --format json)")
            }
            speculation = .none
        }
        speculation.adaptsDraftLength = !arguments.has("--fixed-draft")
        speculation.preservesGreedyOutput = !arguments.has("--inexact-greedy")
        return speculation
    }
}
