import Foundation

/// The fault-injecting download server (LocalLLMKitTestSupport/download_server.py) on
/// 127.0.0.1 (or another loopback address), serving the files of a folder for as long as the
/// value lives.
package final class DownloadServer {
    /// One request the server received.
    package struct Request: Decodable, Equatable {
        package let path: String
        package let range: String?
        /// The If-Range header.
        package var ifRange: String?
        /// The Authorization header.
        package var authorization: String?
        /// The status the server answered with.
        package var status: Int?
        /// When it arrived (seconds since 1970, the server's clock).
        package var time: Double?

        package enum CodingKeys: String, CodingKey {
            case path, range, status, time
            case ifRange = "if_range"
            case authorization
        }
    }

    private let process: Process
    package let port: Int
    /// The address it listens on.
    package let host: String

    /// Starts the server on `host`: 127.0.0.1, or another loopback address (127.0.0.2) to play
    /// a second host.
    package init(serving folder: URL, host: String = "127.0.0.1") throws {
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "download_server.py")
        (process, port) = try PythonServer.start(script,
                                                 arguments: [folder.path, host])
        self.host = host
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    /// A URL on the server, e.g. `url("/files/model.gguf")`.
    package func url(_ path: String) -> URL { URL(string: "http://\(host):\(port)\(path)")! }

    /// Changes the server's behaviour, e.g. `control("/control/drop/1000000")`.
    package func control(_ path: String) throws {
        _ = try Data(contentsOf: url(path))
    }

    /// The requests since the last call.
    package func log() throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: Data(contentsOf: url("/log")))
    }
}
