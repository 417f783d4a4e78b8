import Foundation

/// Runs a command to its end without blocking a thread of Swift's cooperative pool (the
/// pool has as few threads as the machine has cores, and the model tests keep some busy).
enum ChildProcess {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `executable` with `arguments`; kills it after `timeout`.
    /// - Returns: its exit status and standard output (standard error is dropped).
    static func run(_ executable: URL, _ arguments: [String], timeout: Duration) async throws -> (status: Int32, output: Data) {
        let file = FileManager.default.temporaryDirectory.appending(path: "child-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        let (exited, exit) = AsyncStream<Never>.makeStream()
        process.terminationHandler = { _ in exit.finish() }
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
        }
        for await _ in exited {}
        watchdog.cancel()
        if process.terminationReason == .uncaughtSignal {
            throw Failure(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) was killed "
                          + "(signal \(process.terminationStatus); the limit was \(timeout))")
        }
        return (process.terminationStatus, try Data(contentsOf: file))
    }
}
