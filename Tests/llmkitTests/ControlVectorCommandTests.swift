import Foundation
import Testing

/// `--control-vector`, `--control-vector-scaled` and `--control-vector-layer-range` against
/// llama-completion with the same flags, on a seeded-random control vector for SmolLM2 that
/// scripts/synth-control-vector writes, and hostile vectors refused.
@Suite("Control vectors", .serialized)
struct ControlVectorCommandTests {
    @Test("greedy output equals llama-completion's at scales 1, 0.5 and 0, on a layer range, and with two vectors summed")
    func parityWithLlamaCompletion() throws {
        let folder = try ScratchFolder()
        let vector = try SynthScript.write("synth-control-vector", in: folder, "vector.gguf")
        let other = try SynthScript.write("synth-control-vector", in: folder, "other.gguf", ["--seed", "5", "--magnitude", "0.5"])
        let model = try ReferenceModel.chatURL().path, prompt = "The capital of France is"
        var outputs: [String] = []
        for flags in [[], ["--control-vector", vector], ["--control-vector-scaled", "\(vector):0.5"],
                      ["--control-vector-scaled", "\(vector):0"], ["--control-vector", vector, "--control-vector-layer-range", "5", "20"],
                      ["--control-vector-scaled", "\(vector):0.3,\(other):-0.4"]] {
            outputs.append(try CompletionParity.expectSameText(model: model, prompt: prompt, tokens: 24, flags: flags))
        }
        // Each setting steers differently, and scale 0 leaves the model as it is.
        #expect(Set([outputs[0], outputs[1], outputs[2], outputs[4], outputs[5]]).count == 5, "\(outputs)")
        #expect(outputs[3] == outputs[0])
    }

    @Test("hostile control vectors are typed errors naming what is wrong, before llama.cpp reads them", arguments: [
        (["--layer-zero"], "direction.0 steers layer 0, but the model's steerable layers are 1 to 29"),
        (["--beyond"], "direction.30 steers layer 30"),
        (["--bad-name"], "its tensor steer.1 is not named direction.LAYER"),
        (["--width", "64"], "direction.1 has shape [64], but the model's embedding width is 576"),
        (["--matrix"], "direction.1 has shape [288, 2]"),
        (["--f16"], "direction.1 is f16, not f32"),
        (["--nan"], "direction.1 holds nan at 0, not a finite number"),
    ])
    func hostileVectors(flags: [String], message: String) throws {
        let folder = try ScratchFolder()
        let vector = try SynthScript.write("synth-control-vector", in: folder, "hostile.gguf", flags)
        let model = try ReferenceModel.chatURL().path
        let output = try CommandRunner.llmkit(["run", "--raw", "-m", model, "-n", "2", "--control-vector", vector, "Hi"])
        #expect(output.status == 1 && output.stderr.contains("cannot apply the control vector") && output.stderr.contains(message),
                "\(flags): \(output.stderr)")
    }

    @Test("a missing file, a file that is no GGUF, a bad scale and bad layer ranges are refused")
    func badArguments() throws {
        let folder = try ScratchFolder()
        let vector = try SynthScript.write("synth-control-vector", in: folder, "vector.gguf")
        let model = try ReferenceModel.chatURL().path
        try Data("not a gguf".utf8).write(to: URL(filePath: folder.path("text.gguf")))
        let cases: [([String], Int32, String)] = [
            (["--control-vector", folder.path("missing.gguf")], 1, "missing.gguf"),
            (["--control-vector", folder.path("text.gguf")], 1, "it is not a readable GGUF file"),
            (["--control-vector-scaled", "\(vector):inf"], 2, "--control-vector-scaled takes FILE:SCALE"),
            (["--control-vector", vector, "--control-vector-layer-range", "9", "3"], 2, "START ≤ END"),
            (["--control-vector", vector, "--control-vector-layer-range", "0", "3"], 2, "--control-vector-layer-range expects"),
            (["--control-vector", vector, "--control-vector-layer-range", "3", "31"], 1, "3...31 is beyond the model's layers 1...30"),
        ]
        for (flags, status, message) in cases {
            let output = try CommandRunner.llmkit(["run", "--raw", "-m", model, "-n", "2"] + flags + ["Hi"])
            #expect(output.status == status && output.stderr.contains(message), "\(flags): \(output.stderr)")
        }
    }

    @Test("info describes a control vector, and with -m whether it fits that model")
    func infoDescribesAVector() throws {
        let folder = try ScratchFolder()
        let vector = try SynthScript.write("synth-control-vector", in: folder, "vector.gguf")
        let described = try CommandRunner.llmkit(["info", vector, "-m", try ReferenceModel.chatURL().path])
        #expect(described.status == 0, "\(described.stderr)")
        for line in ["control vector", "width", "576", "layers", "1-29", "yes"] {
            #expect(described.stdout.contains(line), "\(line): \(described.stdout)")
        }
        let otherModel = try ReferenceModel.url().path       // Gemma 3 270M: 640 wide
        let misfit = try CommandRunner.llmkit(["info", vector, "-m", otherModel])
        #expect(misfit.status == 1 && misfit.stdout.contains("no: cannot apply the control vector")
                && misfit.stdout.contains("the model's embedding width is 640"), "\(misfit.stdout)")
    }
}
