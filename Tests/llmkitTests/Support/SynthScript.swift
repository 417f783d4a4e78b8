import Foundation
import Testing

/// The scripts under scripts/ that write seeded-random GGUF files for a base model (a LoRA
/// adapter, a control vector), run with the bootstrap's numpy and gguf.
enum SynthScript {
    /// Runs `scripts/NAME --base-model BASE --output FOLDER/FILE FLAGS…`; BASE: the default model.
    /// - Returns: the written file's path.
    static func write(_ script: String, in folder: ScratchFolder, _ file: String, _ flags: [String] = [],
                      base: URL? = nil) throws -> String {
        let models = try ReferenceModel.chatURL().deletingLastPathComponent()
        let path = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../../scripts/\(script)").standardized
        let output = folder.path(file)
        let result = try CommandRunner.run(URL(filePath: "/usr/bin/env"), [
            "python3", path.path, "--base-model", try base?.path ?? ReferenceModel.chatURL().path, "--output", output,
        ] + flags, environment: ["PYTHONPATH": models.deletingLastPathComponent().appending(path: "python-convert").path])
        try #require(result.status == 0, "\(script) failed: \(result.stderr)")
        return output
    }
}
