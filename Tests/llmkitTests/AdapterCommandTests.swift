import Foundation
import Testing

/// `--lora` and `--lora-scaled` against llama-completion with the same flags, on a seeded-random
/// adapter for SmolLM2 that scripts/synth-lora-adapter writes, and hostile adapters refused.
@Suite("LoRA adapters", .serialized)
struct AdapterCommandTests {
    /// Writes an adapter for the default model with scripts/synth-lora-adapter and `flags`.
    static func adapter(in folder: ScratchFolder, _ name: String, _ flags: [String] = []) throws -> String {
        try SynthScript.write("synth-lora-adapter", in: folder, name, flags)
    }

    @Test("greedy output equals llama-completion's with the adapter at scale 1 and 0.5; scale 0 is the model alone")
    func parityWithLlamaCompletion() throws {
        let folder = try ScratchFolder()
        let adapter = try Self.adapter(in: folder, "lora.gguf")
        let model = try ReferenceModel.chatURL().path, prompt = "The capital of France is"
        var outputs: [String] = []
        for flags in [[], ["--lora", adapter], ["--lora-scaled", "\(adapter):0.5"], ["--lora-scaled", "\(adapter):0"]] {
            outputs.append(try CompletionParity.expectSameText(model: model, prompt: prompt, tokens: 24, flags: flags))
        }
        // The adapter changes the answer, its scale matters, and scale 0 leaves the model as it is.
        #expect(outputs[1] != outputs[0] && outputs[2] != outputs[0] && outputs[1] != outputs[2])
        #expect(outputs[3] == outputs[0])
    }

    @Test("--lora FILE:SCALE is --lora-scaled FILE:SCALE, and the flags repeat as a list would")
    func scaleSuffixAndRepetition() throws {
        let folder = try ScratchFolder()
        let first = try Self.adapter(in: folder, "a.gguf"), second = try Self.adapter(in: folder, "b.gguf", ["--seed", "3"])
        func run(_ flags: [String]) throws -> String {
            let output = try CommandRunner.llmkit(["run", "-m", try ReferenceModel.chatURL().path, "--raw", "--temperature", "0", "-n", "12"]
                                                  + flags + ["The capital of France is"])
            #expect(output.status == 0, "\(flags): \(output.stderr)")
            return output.stdout
        }
        #expect(try run(["--lora", "\(first):0.5"]) == (try run(["--lora-scaled", "\(first):0.5"])))
        #expect(try run(["--lora", first, "--lora", "\(second):0.25"]) == (try run(["--lora", "\(first),\(second):0.25"])))
        #expect(try run(["--lora", first, "--lora", second]) != (try run(["--lora", first])))
        let bad = try CommandRunner.llmkit(["run", "--raw", "-n", "2", "--lora", "\(first):nan", "Hi"])
        #expect(bad.status == 2 && bad.stderr.contains("--lora takes FILE[:SCALE]"), "\(bad.stderr)")
    }

    @Test("Qwen2.5-Coder-0.5B (biased attention): greedy output equals llama-completion's with an adapter at scale 1 and 0.5")
    func parityOnQwen() throws {
        let folder = try ScratchFolder()
        let model = try ReferenceModel.toolCallingURL()
        let adapter = try SynthScript.write("synth-lora-adapter", in: folder, "qwen-lora.gguf", base: model)
        let plain = try CompletionParity.expectSameText(model: model.path, prompt: "def fibonacci(n):", tokens: 24)
        let full = try CompletionParity.expectSameText(model: model.path, prompt: "def fibonacci(n):", tokens: 24, flags: ["--lora", adapter])
        let half = try CompletionParity.expectSameText(model: model.path, prompt: "def fibonacci(n):", tokens: 24,
                                                       flags: ["--lora-scaled", "\(adapter):0.5"])
        #expect(Set([plain, full, half]).count == 3)
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

    @Test("info describes an adapter, and with -m whether it fits that model")
    func infoDescribesAnAdapter() throws {
        let folder = try ScratchFolder()
        let adapter = try Self.adapter(in: folder, "lora.gguf")
        let other = try Self.adapter(in: folder, "qwen.gguf", ["--architecture", "qwen2"])
        let model = try ReferenceModel.chatURL().path
        let plain = try CommandRunner.llmkit(["info", adapter])
        #expect(plain.status == 0, "\(plain.stderr)")
        for line in ["LoRA adapter", "alpha         16.0", "rank          8", "attn_q.weight, attn_v.weight", "layers        0-29"] {
            #expect(plain.stdout.contains(line), "\(line): \(plain.stdout)")
        }
        #expect(!plain.stdout.contains("fits"))
        let fits = try CommandRunner.llmkit(["info", adapter, "-m", model])
        #expect(fits.status == 0 && fits.stdout.contains("fits \(URL(filePath: model).lastPathComponent)  yes"), "\(fits.stdout)")
        let misfit = try CommandRunner.llmkit(["info", other, "-m", model, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(misfit.stdout.utf8)) as? [String: Any]
        #expect(misfit.status == 1)
        #expect(report?["kind"] as? String == "lora" && report?["ranks"] as? [Int] == [8], "\(misfit.stdout)")
        #expect((report?["problem"] as? String)?.contains("it adapts qwen2, and the model is llama") == true, "\(misfit.stdout)")
    }
}

/// `llmkit cp SOURCE NAME --lora…`: a library model that carries adapters, over a scratch library.
@Suite("Library models with adapters (CLI)", .serialized)
struct LibraryAdapterCommandTests: ScratchLibrarySuite {
    let folder: ScratchFolder
    var environment: [String: String] { folder.libraryEnvironment }

    init() throws {
        folder = try ScratchFolder()
    }

    @Test("cp --lora-scaled makes a model that runs as the base with that adapter; show lists it; bad adapters add nothing")
    func copyWithAdapter() throws {
        let adapter = try AdapterCommandTests.adapter(in: folder, "lora.gguf")
        let hostile = try AdapterCommandTests.adapter(in: folder, "hostile.gguf", ["--architecture", "qwen2"])
        let base = try ReferenceModel.chatURL().path
        let copied = try llmkit(["cp", base, "smol-tuned", "--lora-scaled", "\(adapter):0.5"])
        #expect(copied.status == 0 && copied.stderr.contains("with 1 adapter"), "\(copied.stderr)")
        let prompt = "The capital of France is"
        let tuned = try llmkit(["run", "-m", "smol-tuned", "--raw", "--temperature", "0", "-n", "16", prompt])
        let expected = try llmkit(["run", "-m", base, "--raw", "--temperature", "0", "-n", "16", "--lora-scaled", "\(adapter):0.5", prompt])
        let plain = try llmkit(["run", "-m", base, "--raw", "--temperature", "0", "-n", "16", prompt])
        #expect(tuned.status == 0 && tuned.stdout == expected.stdout, "\(tuned.stdout) / \(expected.stdout) \(tuned.stderr)")
        #expect(tuned.stdout != plain.stdout)
        let shown = try llmkit(["show", "smol-tuned", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect((report?["adapters"] as? [String])?.first?.hasSuffix("adapter-1.gguf:0.5") == true, "\(shown.stdout)")
        let refused = try llmkit(["cp", base, "smol-qwen", "--lora", hostile])
        #expect(refused.status == 1 && refused.stderr.contains("it adapts qwen2"), "\(refused.stderr)")
        #expect(!(try llmkit(["list"])).stdout.contains("smol-qwen"))
        let usage = try llmkit(["cp", "smol-tuned"])
        #expect(usage.status == 2 && usage.stderr.contains("give SOURCE and NAME"), "\(usage.stderr)")
    }
}
