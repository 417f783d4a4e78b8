import Foundation
import LocalLLMKit

/// Runs the real `llmkit` binary (and llama.cpp's tools) as child processes.
struct CommandRunner {
    struct Output {
        var status: Int32
        var exitedNormally: Bool
        var stdout: String
        var stderr: String
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `llmkit` binary that `swift build` put next to the test bundle.
    static func llmkit() throws -> URL {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["LLMKIT_BINARY"] {
            candidates.append(URL(filePath: explicit))
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appending(path: "llmkit"))
            candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent().appending(path: "llmkit"))
        }
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appending(path: ".build/debug/llmkit"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Failure(description: "llmkit binary not found; looked at \(candidates.map(\.path))")
        }
        return found
    }

    /// A llama.cpp tool installed by scripts/bootstrap, e.g. `llama-completion`.
    static func llamaTool(_ name: String) throws -> URL {
        let prefix = ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local"
        let url = URL(filePath: prefix).appending(path: "bin/\(name)")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Failure(description: "\(name) not found at \(url.path); run scripts/bootstrap")
        }
        return url
    }

    /// Runs `executable` to completion (killed after `timeout` as a safety net).
    @discardableResult
    static func run(_ executable: URL, _ arguments: [String], stdin: String? = nil,
                    environment: [String: String] = [:], timeout: Duration = .seconds(300)) throws -> Output {
        let (process, reader) = try launch(executable, arguments, stdin: stdin, environment: environment)
        return finish(process, reader, deadline: ContinuousClock.now + timeout)
    }

    /// Runs `llmkit` with `arguments`.
    @discardableResult
    static func llmkit(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        try run(llmkit(), arguments, stdin: stdin, environment: environment)
    }

    /// Starts `llmkit`, waits until it has written something to stdout, sends `signal` (SIGINT).
    static func interruptLLMKit(_ arguments: [String], signal: Int32 = SIGINT) throws -> Output {
        let (process, reader) = try launch(llmkit(), arguments, stdin: "")
        let deadline = ContinuousClock.now + .seconds(120)
        while reader.stdoutByteCount == 0 && process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        kill(process.processIdentifier, signal)
        return finish(process, reader, deadline: deadline)
    }

    static func launch(_ executable: URL, _ arguments: [String], stdin: String?,
                               environment: [String: String] = [:]) throws -> (Process, PipeReader) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        // The reference model unless a test names another (an empty LLMKIT_MODEL means the real default).
        process.environment = ProcessInfo.processInfo.environment
            .merging(["LLMKIT_MODEL": try ReferenceModel.url().path, "LLMKIT_HOME": scratchHome()]) { $1 }
            .merging(environment) { $1 }
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inPipe.fileHandleForWriting.close()
        return (process, PipeReader(outPipe, errPipe))
    }

    /// A data folder of one process's own, for a test that names none: what `llmkit` keeps there
    /// by default (the prompt cache, fit plans) must neither come from the tester's real folder
    /// nor pass from one test to another. Removed when the test process ends.
    static func scratchHome() -> String {
        ScratchHomes.root.appending(path: UUID().uuidString).path
    }

    /// Starts `llmkit serve --port 0 arguments…` and waits for its "listening on" line.
    /// - Returns: the process, its output so far, and the base URL it announced.
    static func startServing(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, PipeReader, URL) {
        let (process, reader) = try launch(llmkit(), ["serve", "--port", "0"] + arguments, stdin: "", environment: environment)
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning, ContinuousClock.now < deadline {
            let text = reader.standardErrorSoFar
            if let range = text.range(of: "listening on "), let end = text[range.upperBound...].firstIndex(of: " "),
               let url = URL(string: String(text[range.upperBound..<end])) {
                return (process, reader, url)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(process.processIdentifier, SIGKILL)
        throw Failure(description: "llmkit serve did not start: \(reader.standardErrorSoFar)")
    }

    static func finish(_ process: Process, _ reader: PipeReader, deadline: ContinuousClock.Instant) -> Output {
        while process.isRunning {
            if ContinuousClock.now > deadline { process.terminate() }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let (out, err) = reader.finish()
        return Output(status: process.terminationStatus, exitedNormally: process.terminationReason == .exit,
                      stdout: out, stderr: err)
    }
}

/// Drains a process's stdout and stderr on background threads, so it never blocks on a full pipe.
final class PipeReader: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()
    private let group = DispatchGroup()

    init(_ stdout: Pipe, _ stderr: Pipe) {
        drain(stdout.fileHandleForReading, toStandardOutput: true)
        drain(stderr.fileHandleForReading, toStandardOutput: false)
    }

    var stdoutByteCount: Int { lock.withLock { out.count } }

    /// What the process has written to stdout so far.
    var standardOutputSoFar: String { lock.withLock { String(decoding: out, as: UTF8.self) } }

    /// What the process has written to stderr so far.
    var standardErrorSoFar: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    func finish() -> (String, String) {
        group.wait()
        return lock.withLock { (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)) }
    }

    private func drain(_ handle: FileHandle, toStandardOutput: Bool) {
        group.enter()
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock {
                    if toStandardOutput { out.append(chunk) } else { err.append(chunk) }
                }
            }
            group.leave()
        }
    }
}

/// The folder that holds every ``CommandRunner/scratchHome()`` of this test process.
private enum ScratchHomes {
    static let root: URL = {
        atexit { try? FileManager.default.removeItem(at: ScratchHomes.root) }
        return FileManager.default.temporaryDirectory.appending(path: "llmkit-test-homes-\(getpid())")
    }()
}
