import Foundation

/// The fault-injecting download server (LocalLLMKitTests/Support/download_server.py) on
/// 127.0.0.1, serving the files of a folder for as long as the value lives.
final class DownloadServer {
    /// One request the server received.
    struct Request: Decodable, Equatable {
        let path: String
        let range: String?
        /// The If-Range header.
        var ifRange: String?
        /// The status the server answered with.
        var status: Int?
        /// When it arrived (seconds since 1970, the server's clock).
        var time: Double?

        enum CodingKeys: String, CodingKey {
            case path, range, status, time
            case ifRange = "if_range"
        }
    }

    private let process: Process
    let port: Int

    init(serving folder: URL) throws {
        let tests = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        (process, port) = try PythonServer.start(tests.appending(path: "LocalLLMKitTests/Support/download_server.py"),
                                                 arguments: [folder.path])
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    /// A URL on the server, e.g. `url("/files/model.gguf")`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Changes the server's behaviour, e.g. `control("/control/drop/1000000")`.
    func control(_ path: String) throws {
        _ = try Data(contentsOf: url(path))
    }

    /// The requests since the last call.
    func log() throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: Data(contentsOf: url("/log")))
    }
}
