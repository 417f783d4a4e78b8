import Foundation
import Testing

/// Greedy `llmkit run --raw` against `llama-completion` on the same model, prompt and flags: the
/// reference every raw-completion feature (cache types, adapters, control vectors) is held to.
enum CompletionParity {
    /// Runs both with `flags` (spelled as both tools take them) and expects the same text.
    /// llama-completion repacks the weights unless told not to, and then rounds differently:
    /// llmkit keeps the file's layout (LocalModel.Configuration.repacksWeights).
    /// - Returns: llmkit's text.
    @discardableResult
    static func expectSameText(model: String, prompt: String, tokens: Int = 48, flags: [String] = [],
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let reference = try CommandRunner.run(CommandRunner.llamaTool("llama-completion"), [
            "-m", model, "-p", prompt, "-n", "\(tokens)", "--temp", "0", "-no-cnv", "-t", "2", "-c", "4096", "--no-repack",
        ] + flags)
        #expect(reference.status == 0, "llama-completion failed: \(reference.stderr.suffix(500))", sourceLocation: sourceLocation)
        let ours = try CommandRunner.llmkit(["run", "--model", model, "--raw", "--temperature", "0", "--max-tokens", "\(tokens)",
                                             "--threads", "2", "--context", "4096"] + flags + [prompt])
        #expect(ours.status == 0, "llmkit failed: \(ours.stderr)", sourceLocation: sourceLocation)
        // llama-completion echoes the prompt, then the completion, then "\n\n" (or " [end of text]\n\n").
        #expect(reference.stdout.hasPrefix(prompt), sourceLocation: sourceLocation)
        let continuation = String(reference.stdout.dropFirst(prompt.count))
        #expect(!ours.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(continuation == ours.stdout + "\n\n" || continuation == ours.stdout + " [end of text]\n\n",
                "\(flags): llama-completion \(continuation.debugDescription), llmkit \(ours.stdout.debugDescription)",
                sourceLocation: sourceLocation)
        return ours.stdout
    }
}
