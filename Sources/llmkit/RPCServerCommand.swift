import Foundation
import LocalLLMKit

/// `llmkit rpc-server`: llama.cpp's RPC server, offering this machine's devices to models loaded
/// elsewhere with `--rpc`.
enum RPCServerCommand {
    static let spec = CommandSpec(
        name: "rpc-server",
        usage: "usage: llmkit rpc-server [--host ADDRESS] [--port N] [--device NAME,…] [--threads N] [--cache]",
        help: """
        Offer this machine's devices to llmkit (run, chat, bench, serve with --rpc HOST:PORT) and
        to llama.cpp's own tools (--rpc) on other machines: llama.cpp's RPC server (ggml-rpc),
        which holds the layers a client sends it and computes them. Serves one client at a time,
        until stopped (Ctrl-C).

        ggml-rpc has no authentication and no encryption: whoever reaches the port can use the
        devices and read what they hold. It binds loopback unless told otherwise; bind another
        address only on a network you trust.

          -H, --host ADDRESS  the IPv4 address to bind (default 127.0.0.1; 0.0.0.0: every interface)
          -p, --port N        the TCP port (default 50052)
          -d, --device NAMES  ggml's device names to offer, comma-separated (CPU, CUDA0…; default:
                              the GPUs, else the CPU)
          -t, --threads N     CPU threads for a CPU device (default: active cores)
          -c, --cache         keep tensors received in the data folder's rpc-cache, so that a client
                              loading the same model again sends only their hashes
          -h, --help          show this help
        """,
        valueOptions: ["--host", "--port", "--device", "--threads"],
        flagOptions: ["--cache"],
        aliases: ["-H": "--host", "-p": "--port", "-d": "--device", "-c": "--cache"]
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        var server = RPCDeviceServer()
        server.host = arguments.value("--host") ?? server.host
        server.port = try arguments.integer("--port", in: 1...65535) ?? server.port
        server.threads = try arguments.integer("--threads", in: 1...1024) ?? server.threads
        if let devices = arguments.value("--device") {
            server.devices = devices.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !server.devices.isEmpty else { throw UsageError(message: "--device takes device names, such as CPU or CUDA0") }
        }
        if arguments.has("--cache") {
            server.cacheDirectory = DataFolder.url().appending(path: "rpc-cache", directoryHint: .isDirectory)
        }
        try server.validate()
        if server.isExposed {
            Console.message("llmkit rpc-server: warning: binding \(server.host), not loopback: ggml-rpc has no "
                            + "authentication or encryption, so anyone who reaches port \(server.port) can use these devices")
        }
        let configured = server
        let outcome: Result<Void, Error> = await withCheckedContinuation { continuation in
            // The server blocks its thread for as long as it serves.
            let thread = Thread { continuation.resume(returning: Result { try configured.run() }) }
            thread.name = "llmkit rpc-server"
            thread.start()
        }
        try outcome.get()
        return .success
    }
}
