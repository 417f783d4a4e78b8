import Foundation
import Testing

/// Files that the scripts under scripts/ write for the default model (a LoRA adapter, a control
/// vector), with the bootstrap's numpy and gguf.
enum SyntheticFile {
    /// Runs `scripts/SCRIPT --base-model DEFAULT --output OUTPUT FLAGS…`.
    static func write(_ script: String, to output: URL, _ flags: [String] = []) throws {
        let models = try ReferenceModel.chatURL().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", URL(filePath: #filePath).deletingLastPathComponent()
                                .appending(path: "../../../scripts/\(script)").standardized.path,
                             "--base-model", try ReferenceModel.chatURL().path, "--output", output.path] + flags
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["PYTHONPATH": models.deletingLastPathComponent().appending(path: "python-convert").path]) { _, new in new }
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(script) failed")
    }
}
