import Foundation

/// The fault-injecting download server (LocalLLMKitTests/Support/download_server.py) on
/// 127.0.0.1 (or another loopback address), serving the files of a folder for as long as the
/// value lives.
final class DownloadServer {
    /// One request the server received.
    struct Request: Decodable, Equatable {
        let path: String
        let range: String?
        /// The If-Range header.
        var ifRange: String?
        /// The Authorization header.
        var authorization: String?
        /// The status the server answered with.
        var status: Int?
        /// When it arrived (seconds since 1970, the server's clock).
        var time: Double?

        enum CodingKeys: String, CodingKey {
            case path, range, status, time
            case ifRange = "if_range"
            case authorization
        }
    }

    private let process: Process
    let port: Int
    /// The address it listens on.
    let host: String

    /// Starts the server on `host`: 127.0.0.1, or another loopback address (127.0.0.2) to play
    /// a second host.
    init(serving folder: URL, host: String = "127.0.0.1") throws {
        let tests = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        (process, port) = try PythonServer.start(tests.appending(path: "LocalLLMKitTests/Support/download_server.py"),
                                                 arguments: [folder.path, host])
        self.host = host
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    /// A URL on the server, e.g. `url("/files/model.gguf")`.
    func url(_ path: String) -> URL { URL(string: "http://\(host):\(port)\(path)")! }

    /// Changes the server's behaviour, e.g. `control("/control/drop/1000000")`.
    func control(_ path: String) throws {
        _ = try Data(contentsOf: url(path))
    }

    /// The requests since the last call.
    func log() throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: Data(contentsOf: url("/log")))
    }
}
