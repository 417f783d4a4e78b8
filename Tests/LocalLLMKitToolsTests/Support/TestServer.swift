import Foundation

/// The Python test server (Support/http_server.py) on 127.0.0.1, for as long as the value lives.
final class TestServer {
    let process: Process
    let port: Int

    /// Starts the server; with `tls` (certificate and key files), it serves HTTPS.
    init(tls: (certificate: URL, key: URL)? = nil) throws {
        let arguments = tls.map { ["--tls", $0.certificate.path, $0.key.path] } ?? []
        (process, port) = try PythonServer.start(URL(filePath: #filePath).deletingLastPathComponent().appending(path: "http_server.py"),
                                                 arguments: arguments)
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
