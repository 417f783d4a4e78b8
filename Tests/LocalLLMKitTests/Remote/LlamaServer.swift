import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalLLMKit

/// A real llama-server (built by scripts/bootstrap from the pinned llama.cpp, installed in
/// `$LLMKIT_PREFIX/bin`) on a free port of 127.0.0.1, serving Qwen2.5-Coder-0.5B-Instruct as
/// `qwen` with two slots, for as long as the value lives. Tests fail (not skip) without it.
final class LlamaServer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let process: Process
    private let folder: TemporaryDirectory
    let port: Int

    /// The llama-server that scripts/bootstrap installs.
    static var executable: URL {
        URL(filePath: ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local").appending(path: "bin/llama-server")
    }

    /// Starts the server and waits until it answers `/health` (the model is loaded).
    /// - Parameter apiKey: a key the server then demands (`--api-key`).
    init(apiKey: String? = nil) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw Failure(description: "llama-server is missing at \(Self.executable.path): scripts/bootstrap builds and installs it")
        }
        folder = try TemporaryDirectory()
        (process, port) = try await Self.start(model: ReferenceModel.toolCallingURL(), apiKey: apiKey, folder: folder)
    }

    /// Launches the server on a free port; the port could be taken before the server binds
    /// it, and then another one is tried.
    private static func start(model: URL, apiKey: String?, folder: TemporaryDirectory) async throws -> (Process, Int) {
        var attempt = 0
        while true {
            let port = try FreePort.find()
            let log = folder.file("llama-server-\(attempt).log")
            let process = try launch(model: model, port: port, apiKey: apiKey, log: log)
            do {
                try await waitUntilHealthy(process, port: port, log: log)
                return (process, port)
            } catch let failure as Failure where attempt < 2 && failure.description.contains("couldn't bind") {
                attempt += 1
            } catch {
                kill(process.processIdentifier, SIGKILL)
                throw error
            }
        }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The OpenAI-compatible API of the server.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }

    /// A remote model on the server.
    func model(apiKey: String? = nil, configuration: RemoteModel.Configuration = .init()) throws -> RemoteModel {
        try RemoteModel(baseURL: baseURL, model: "qwen", apiKey: apiKey, configuration: configuration)
    }

    /// Whether any slot is generating (llama-server's `/slots`).
    func isGenerating() async throws -> Bool {
        let data = try await Self.get(URL(string: "http://127.0.0.1:\(port)/slots")!).body
        let slots = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return slots.contains { $0["is_processing"] as? Bool == true }
    }

    private static func launch(model: URL, port: Int, apiKey: String?, log: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-m", model.path, "--alias", "qwen", "-np", "2", "-c", "4096", "--jinja", "-t", "2",
                             "--host", "127.0.0.1", "--port", String(port), "--no-webui"]
            + (apiKey.map { ["--api-key", $0] } ?? [])
        process.standardOutput = output
        process.standardError = output
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = executable.deletingLastPathComponent().deletingLastPathComponent().appending(path: "lib").path
            + (environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? "")
        process.environment = environment
        try process.run()
        return process
    }

    /// Polls `/health` until it answers 200 (at most two minutes: a cold disk on a busy machine).
    private static func waitUntilHealthy(_ process: Process, port: Int, log: URL) async throws {
        let health = URL(string: "http://127.0.0.1:\(port)/health")!
        for _ in 0..<1200 {
            guard process.isRunning else {
                throw Failure(description: "llama-server exited (status \(process.terminationStatus)): \(tail(of: log))")
            }
            if (try? await get(health).status) == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "llama-server did not become healthy in two minutes: \(tail(of: log))")
    }

    private static func tail(of log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return String(text.split(separator: "\n").suffix(8).joined(separator: "\n"))
    }

    /// A GET through URLSession, for the server's own endpoints.
    private static func get(_ url: URL) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.timeoutInterval = 10
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
                }
            }.resume()
        }
    }
}
