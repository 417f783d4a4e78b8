import Foundation

/// The fault-injecting download server (LocalLLMKitTests/Support/download_server.py) on
/// 127.0.0.1, serving the files of a folder for as long as the value lives.
final class DownloadServer {
    /// One request the server received.
    struct Request: Decodable, Equatable {
        let path: String
        let range: String?
    }

    private let process = Process()
    let port: Int

    init(serving folder: URL) throws {
        let tests = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", tests.appending(path: "LocalLLMKitTests/Support/download_server.py").path, folder.path]
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
            throw NSError(domain: "DownloadServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "the download server did not start"])
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    /// A URL on the server, e.g. `url("/files/model.gguf")`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The requests since the last call.
    func log() throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: Data(contentsOf: url("/log")))
    }
}
