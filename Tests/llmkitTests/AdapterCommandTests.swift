import Foundation
import Testing

/// `--lora` and `--lora-scaled` against llama-completion with the same flags, on a seeded-random
/// adapter for SmolLM2 that scripts/synth-lora-adapter writes, and hostile adapters refused.
@Suite("LoRA adapters", .serialized)
struct AdapterCommandTests {
    /// Writes an adapter for the default model with scripts/synth-lora-adapter and `flags`.
    static func adapter(in folder: ScratchFolder, _ name: String, _ flags: [String] = []) throws -> String {
        let models = try ReferenceModel.chatURL().deletingLastPathComponent()
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../scripts/synth-lora-adapter").standardized
        let output = folder.path(name)
        let result = try CommandRunner.run(URL(filePath: "/usr/bin/env"), [
            "python3", script.path, "--base-model", try ReferenceModel.chatURL().path, "--output", output,
        ] + flags, environment: ["PYTHONPATH": models.deletingLastPathComponent().appending(path: "python-convert").path])
        try #require(result.status == 0, "synth-lora-adapter failed: \(result.stderr)")
        return output
    }

    @Test("greedy output equals llama-completion's with the adapter at scale 1 and 0.5; scale 0 is the model alone")
    func parityWithLlamaCompletion() throws {
        let folder = try ScratchFolder()
        let adapter = try Self.adapter(in: folder, "lora.gguf")
        let model = try ReferenceModel.chatURL().path, prompt = "The capital of France is"
        var outputs: [String] = []
        for flags in [[], ["--lora", adapter], ["--lora-scaled", "\(adapter):0.5"], ["--lora-scaled", "\(adapter):0"]] {
            let reference = try CommandRunner.run(CommandRunner.llamaTool("llama-completion"), [
                "-m", model, "-p", prompt, "-n", "24", "--temp", "0", "-no-cnv", "-t", "2", "-c", "4096", "--no-repack",
            ] + flags)
            #expect(reference.status == 0, "llama-completion failed: \(reference.stderr.suffix(500))")
            let ours = try CommandRunner.llmkit(["run", "--model", model, "--raw", "--temperature", "0", "--max-tokens", "24",
                                                 "--threads", "2", "--context", "4096"] + flags + [prompt])
            #expect(ours.status == 0, "llmkit failed: \(ours.stderr)")
            let continuation = String(reference.stdout.dropFirst(prompt.count))
            #expect(continuation == ours.stdout + "\n\n" || continuation == ours.stdout + " [end of text]\n\n",
                    "\(flags): llama-completion \(continuation.debugDescription), llmkit \(ours.stdout.debugDescription)")
            outputs.append(ours.stdout)
        }
        // The adapter changes the answer, its scale matters, and scale 0 leaves the model as it is.
        #expect(outputs[1] != outputs[0] && outputs[2] != outputs[0] && outputs[1] != outputs[2])
        #expect(outputs[3] == outputs[0])
    }

    @Test("hostile adapters are typed errors naming what is wrong, before llama.cpp reads them", arguments: [
        (["--architecture", "qwen2"], "it adapts qwen2, and the model is llama"),
        (["--rank", "0"], "has rank 0"),
        (["--alpha", "nan"], "adapter.lora.alpha is nan"),
        (["--drop-b"], "has no blk.0.attn_q.weight.lora_b"),
        (["--wide"], "blk.0.attn_q.weight's pair has shapes [577, 8]"),
    ])
    func hostileAdapters(flags: [String], message: String) throws {
        let folder = try ScratchFolder()
        let adapter = try Self.adapter(in: folder, "hostile.gguf", flags)
        let model = try ReferenceModel.chatURL().path
        let output = try CommandRunner.llmkit(["run", "--raw", "-m", model, "-n", "2", "--lora", adapter, "Hi"])
        #expect(output.status == 1 && output.stderr.contains("cannot apply the adapter") && output.stderr.contains(message),
                "\(flags): \(output.stderr)")
        let missing = try CommandRunner.llmkit(["run", "--raw", "-m", model, "-n", "2", "--lora", folder.path("missing.gguf"), "Hi"])
        #expect(missing.status == 1 && missing.stderr.contains("missing.gguf"), "\(missing.stderr)")
        let badScale = try CommandRunner.llmkit(["run", "--raw", "-m", model, "-n", "2", "--lora-scaled", "\(adapter):inf", "Hi"])
        #expect(badScale.status == 2 && badScale.stderr.contains("--lora-scaled takes FILE:SCALE"), "\(badScale.stderr)")
    }
}
