import Foundation

/// A real `llmkit rpc-server` child process on a free port of 127.0.0.1, stopped when the value
/// goes away (or by ``kill()``).
final class RPCServerProcess {
    let process: Process
    let port: Int
    private let reader: PipeReader

    var endpoint: String { "127.0.0.1:\(port)" }

    /// Starts the server (on `port`, else a free one) and waits until it accepts connections.
    init(port: Int? = nil, threads: Int = 1) throws {
        var attempt = 0
        while true {
            let chosen = try port ?? Self.freePort()
            let (process, reader) = try CommandRunner.launch(try CommandRunner.llmkit(),
                                                             ["rpc-server", "--port", String(chosen), "--threads", String(threads)],
                                                             stdin: nil)
            if Self.waitUntilListening(chosen, while: process) {
                (self.process, self.port, self.reader) = (process, chosen, reader)
                return
            }
            process.terminate()
            let output = reader.finish()
            attempt += 1
            if port != nil || attempt == 5 {
                throw CommandRunner.Failure(description: "llmkit rpc-server did not start on \(chosen): \(output.1)")
            }
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        _ = reader.finish()
    }

    /// Kills the server at once (SIGKILL), as a crash or a switched-off machine would end it.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// What it printed so far; the server flushes a line per client it accepts.
    func output() -> String {
        reader.standardOutputSoFar
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        try PullHardeningTests.closedPort()
    }

    /// Waits (up to 20 s) until a TCP connection to `port` succeeds. The probe sends nothing,
    /// which the server takes as a client that left at once.
    private static func waitUntilListening(_ port: Int, while process: Process) -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline && process.isRunning {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}
