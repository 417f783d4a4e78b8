import Foundation

/// The Python test server (Support/http_server.py) on 127.0.0.1, for as long as the value lives.
final class TestServer {
    let process = Process()
    let port: Int

    init() throws {
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "http_server.py")
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
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
            process.terminate()
            throw NSError(domain: "TestServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "the test server did not start"])
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The paths requested so far.
    func hits() throws -> [String] {
        let data = try Data(contentsOf: URL(string: url("/hits"))!)
        return try JSONDecoder().decode([String].self, from: data)
    }
}
