import Foundation
import LocalLLMKit

/// A scratch library for `llmkit` tests: its own `LLMKIT_HOME` and empty caches.
struct ScratchLibrary {
    let scratch: ScratchFolder
    let environment: [String: String]

    init() throws {
        scratch = try ScratchFolder()
        environment = ["LLMKIT_HOME": scratch.path("home"), "HF_HUB_CACHE": scratch.path("hf"),
                       "OLLAMA_MODELS": scratch.path("ollama"), "LLMKIT_CACHE": scratch.path("cache")]
    }

    /// A folder of this scratch area that a real HTTP server on 127.0.0.1 serves, for pulls.
    func downloadServer() throws -> (folder: URL, server: DownloadServer) {
        let folder = url("served")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, try DownloadServer(serving: folder))
    }

    /// The library's folder.
    var root: URL { scratch.url.appending(path: "home/models") }
    /// Its partial downloads' folder.
    var downloads: URL { root.appending(path: ".downloads") }

    /// A path in the scratch folder.
    func url(_ name: String) -> URL { scratch.url.appending(path: name) }

    /// Runs `llmkit` on this library.
    func llmkit(_ arguments: [String]) throws -> CommandRunner.Output {
        try CommandRunner.llmkit(arguments, environment: environment)
    }

    /// `llmkit list --json`.
    func listing() throws -> [[String: Any]] {
        let output = try llmkit(["list", "--json"])
        guard output.status == 0,
              let entries = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] else {
            throw CommandRunner.Failure(description: "llmkit list failed: \(output.stderr)")
        }
        return entries
    }

    /// The names in a folder (none when it does not exist).
    func contents(of folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Writes a small valid GGUF file (`general.name` = `title`, one tensor of `bytes` bytes).
    @discardableResult
    func tinyModel(_ name: String, title: String, bytes: Int = 1 << 20, in folder: URL? = nil) throws -> URL {
        var builder = GGUFBuilder()
        builder.keyValues.append(("general.name", .string(title)))
        builder.tensors = [.init(name: "weights", dimensions: [UInt64(bytes / 4)], offset: 0)]
        builder.dataBytes = bytes
        let directory = folder ?? scratch.url
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appending(path: name)
        try builder.write(to: url)
        return url
    }

    /// The SHA-256 of a file, as coreutils computes it.
    static func sha256(of url: URL) throws -> String {
        let output = try CommandRunner.run(URL(filePath: "/usr/bin/sha256sum"), [url.path])
        return String(output.stdout.prefix(64))
    }
}

/// An `llmkit` process running in the background, whose output can be read as it comes.
final class BackgroundLLMKit: @unchecked Sendable {
    private let process = Process()
    private let reader: PipeReader

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = try CommandRunner.llmkit()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        reader = PipeReader(outPipe, errPipe)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// What it has written to stderr so far.
    var standardError: String { reader.standardErrorSoFar }

    /// Waits for the exit (killing it after `timeout`, as a safety net).
    func wait(timeout: Duration = .seconds(300)) -> CommandRunner.Output {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { process.terminate() }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let (out, err) = reader.finish()
        return CommandRunner.Output(status: process.terminationStatus, exitedNormally: process.terminationReason == .exit,
                                    stdout: out, stderr: err)
    }
}

/// Waits until `condition` holds, for at most `timeout`; returns whether it did.
func waitUntil(timeout: Duration = .seconds(60), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}
