import Foundation

/// Starts a Python test server on 127.0.0.1 that prints its port on its first line of output.
/// (Shared by the test targets through LocalLLMKitTestSupport.)
package enum PythonServer {
    /// Runs `python3 script arguments…` and waits for the port.
    /// - Returns: the running process (kill it when done) and the port.
    package static func start(_ script: URL, arguments: [String] = []) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            throw NSError(domain: "PythonServer", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: "\(script.lastPathComponent) did not start"])
        }
        return (process, port)
    }
}
