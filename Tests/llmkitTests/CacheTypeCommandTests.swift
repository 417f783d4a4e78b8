import Foundation
import Testing

/// `--cache-type-k`, `--cache-type-v` and `--flash-attn` (`-ctk`, `-ctv`, `-fa`) against
/// llama-completion with the same flags, and their usage errors.
@Suite("KV cache flags")
struct CacheTypeCommandTests {
    @Test("greedy output equals llama-completion's with the same cache types and flash attention", arguments: [
        ["q8_0", "q8_0", "on"], ["q4_0", "q8_0", "on"], ["f16", "f16", "off"], ["q8_0", "f16", "off"],
    ])
    func parityWithLlamaCompletion(setting: [String]) throws {
        let (keys, values, flash) = (setting[0], setting[1], setting[2])
        let model = try ReferenceModel.url().path, prompt = "The history of the city of Paris"
        let reference = try CommandRunner.run(CommandRunner.llamaTool("llama-completion"), [
            "-m", model, "-p", prompt, "-n", "48", "--temp", "0", "-no-cnv", "-t", "2", "-c", "4096", "--no-repack",
            "-ctk", keys, "-ctv", values, "-fa", flash,
        ])
        #expect(reference.status == 0, "llama-completion failed: \(reference.stderr.suffix(500))")
        let ours = try CommandRunner.llmkit(["run", "--model", model, "--raw", "--temperature", "0", "--max-tokens", "48",
                                             "--threads", "2", "--context", "4096", "-ctk", keys, "--cache-type-v", values,
                                             "-fa", flash, prompt])
        #expect(ours.status == 0, "llmkit failed: \(ours.stderr)")
        #expect(reference.stdout.hasPrefix(prompt))
        let continuation = String(reference.stdout.dropFirst(prompt.count))
        #expect(!ours.stdout.isEmpty)
        #expect(continuation == ours.stdout + "\n\n" || continuation == ours.stdout + " [end of text]\n\n",
                "llama-completion: \(continuation.debugDescription)\nllmkit: \(ours.stdout.debugDescription)")
    }

    @Test("an unknown type, an unknown flash setting and a quantized value cache without flash attention are usage errors")
    func usageErrors() throws {
        let cases: [([String], String)] = [
            (["--cache-type-k", "q9_0"], "--cache-type-k takes f32, f16, bf16, q8_0"),
            (["-fa", "maybe"], "--flash-attn takes on, off or auto, not maybe"),
            (["-ctv", "q8_0", "-fa", "off"], "--cache-type-v q8_0 needs flash attention"),
        ]
        for (flags, message) in cases {
            let output = try CommandRunner.llmkit(["run", "--raw", "-n", "2"] + flags + ["Hi"])
            #expect(output.status == 2 && output.stderr.contains(message), "\(flags): \(output.stderr)")
        }
    }
}
