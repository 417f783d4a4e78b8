import Foundation
import LocalLLMKit
@testable import LocalLLMKitServer

/// Starts real servers over real models, and runs the Python clients of `Support/` against them.
enum ServerHarness {
    /// A script of `Support/`.
    static func script(_ name: String) -> URL {
        URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Support").appending(path: name)
    }

    /// The default chat model (SmolLM2-135M-Instruct) with `parallel` sequences.
    static func chatModel(parallel: Int = 4, queue: Int = 64, context: Int = 1024) async throws -> LocalModel {
        try await LocalModel.load(from: LocalModel.defaultModelURL(),
                                  configuration: .init(contextLength: context, parallelSequences: parallel,
                                                       maximumQueuedRequests: queue))
    }

    /// Qwen2.5-Coder-0.5B-Instruct, which calls tools.
    static func toolModel(parallel: Int = 2, context: Int = 4096) async throws -> LocalModel {
        try await LocalModel.load(from: ReferenceModel.toolCallingURL(),
                                  configuration: .init(contextLength: context, parallelSequences: parallel))
    }

    /// A server on a free loopback port.
    static func serve(_ models: [String: LocalModel], _ configuration: ModelServer.Configuration = .init()) throws -> ModelServer {
        var configuration = configuration
        configuration.port = 0
        return try ModelServer(models: models, configuration: configuration)
    }

    /// What a child process printed and how it ended.
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
        /// The last line of standard output, parsed as a JSON object (the scripts' summary).
        var summary: [String: Any]? {
            guard let line = output.split(separator: "\n").last,
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            }
            return object
        }
    }

    /// Runs `python3 Support/<script> arguments…`, killed after `timeout`.
    static func python(_ script: String, _ arguments: [String], timeout: Duration = .seconds(600)) async throws -> Outcome {
        try await run("/usr/bin/env", ["python3", self.script(script).path] + arguments, timeout: timeout)
    }

    /// Runs a program to its end (or kills it after `timeout`), collecting both outputs. The pipes
    /// are read on threads of their own: blocking reads on Swift's few cooperative threads would
    /// starve the in-process server the program talks to.
    static func run(_ program: String, _ arguments: [String], timeout: Duration = .seconds(120)) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(filePath: program)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let pid = process.processIdentifier
        let collected = Collected()
        let running = RunningProcess(process: process)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let deadline = Date() + Double(timeout.components.seconds)
            Thread.detachNewThread {
                while !collected.isFinished, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
                if !collected.isFinished { kill(pid, SIGKILL) }
            }
            let group = DispatchGroup()
            for (pipe, isOutput) in [(output, true), (errors, false)] {
                group.enter()
                Thread.detachNewThread {
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    collected.store(data, isOutput: isOutput)
                    group.leave()
                }
            }
            Thread.detachNewThread {
                group.wait()
                running.process.waitUntilExit()
                collected.finish()
                done.resume()
            }
        }
        let (out, err) = collected.both
        return Outcome(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                       errors: String(decoding: err, as: UTF8.self))
    }
}

/// The two outputs of a child process, filled by the threads that read them.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    func store(_ data: Data, isOutput: Bool) {
        lock.withLock { if isOutput { output = data } else { errors = data } }
    }

    var both: (Data, Data) { lock.withLock { (output, errors) } }

    private var finished = false
    var isFinished: Bool { lock.withLock { finished } }
    func finish() { lock.withLock { finished = true } }
}

/// A child process, waited on from a thread of its own.
private struct RunningProcess: @unchecked Sendable {
    let process: Process
}
