import Foundation
import Testing
import LocalLLMKit

/// A model split over two real `llmkit rpc-server` processes on loopback and this process's CPU
/// (llama.cpp's RPC backend), against the same model run locally.
@Suite(.serialized)
struct RPCTests {
    /// SmolLM2 (30 layers): 20 offloaded to the servers, split by their free memory, the other
    /// 10 on this CPU. Weights stay as the file has them on both sides (the servers' CPU backend
    /// does not repack), so that the arithmetic is the same.
    static func configuration(_ servers: [RPCServerProcess]) -> LocalModel.Configuration {
        .init(contextLength: 512, threads: 2, gpuLayers: 20, repacksWeights: false,
              rpcServers: servers.map(\.endpoint))
    }

    static let prompts = [
        "The capital of France is",
        "def fibonacci(n):",
        "Here are three colours: red,",
    ]

    static func greedy(_ model: LocalModel, _ prompt: String) async throws -> String {
        try await model.complete(prompt, options: .greedy(maximumResponseTokens: 40)).text
    }

    @Test func aModelSplitAcrossTwoServersGeneratesWhatItGeneratesLocally() async throws {
        let servers = [try RPCServerProcess(), try RPCServerProcess()]
        let url = try ReferenceModel.chatURL()
        let local = try await LocalModel.load(from: url, configuration: .init(contextLength: 512, threads: 2, gpuLayers: 0,
                                                                              repacksWeights: false))
        var expected: [String] = []
        for prompt in Self.prompts { expected.append(try await Self.greedy(local, prompt)) }

        let split = try await LocalModel.load(from: url, configuration: Self.configuration(servers))
        for (prompt, text) in zip(Self.prompts, expected) {
            let remote = try await Self.greedy(split, prompt)
            #expect(remote == text, "prompt \(prompt)")
            #expect(remote.count > 20)
        }
        // Both servers really held layers: each accepted this process's connections.
        for server in servers { #expect(server.output().contains("Accepted client connection")) }
    }

    @Test func losingAServerMidGenerationFailsWithATypedErrorAndTheModelLoadsAgainOnceItIsBack() async throws {
        let first = try RPCServerProcess()
        var second = try RPCServerProcess()
        let url = try ReferenceModel.chatURL()
        let model = try await LocalModel.load(from: url, configuration: Self.configuration([first, second]))
        var chunks = 0
        var caught: LocalModel.Error?
        do {
            let stream = model.streamCompletion("1, 2, 3, 4, 5, 6, 7, 8,",
                                                options: .greedy(maximumResponseTokens: 400))
            for try await _ in stream {
                chunks += 1
                if chunks == 8 { second.kill() }
            }
        } catch let error as LocalModel.Error {
            caught = error
        }
        guard case .remoteDeviceLost(let endpoint, let reason) = caught else {
            Issue.record("expected remoteDeviceLost after \(chunks) chunks, got \(String(describing: caught))")
            return
        }
        #expect(endpoint == second.endpoint)
        #expect(!reason.isEmpty)
        #expect(chunks >= 8 && chunks < 400)
        // The model stays unusable, and says why at once.
        await #expect(throws: LocalModel.Error.remoteDeviceLost(endpoint: endpoint, reason: reason)) {
            _ = try await Self.greedy(model, "Hello")
        }
        // A server back on the same port serves a new load.
        second = try RPCServerProcess(port: second.port)
        let reloaded = try await LocalModel.load(from: url, configuration: Self.configuration([first, second]))
        #expect(try await Self.greedy(reloaded, "The capital of France is").count > 10)
    }

    @Test func aServerLostWhileTheModelIsIdleFailsItsNextRequest() async throws {
        let first = try RPCServerProcess(), second = try RPCServerProcess()
        let model = try await LocalModel.load(from: try ReferenceModel.chatURL(), configuration: Self.configuration([first, second]))
        #expect(try await Self.greedy(model, "The capital of France is").count > 10)
        first.kill()
        await #expect {
            _ = try await Self.greedy(model, "The capital of Italy is")
        } throws: { error in
            guard case LocalModel.Error.remoteDeviceLost(let endpoint, _) = error else { return false }
            return endpoint == first.endpoint
        }
        // An embedding of the same model fails the same way, instead of returning zeros.
        await #expect(throws: LocalModel.Error.self) { _ = try await model.embeddings(for: ["hello"]) }
    }

    @Test func serversThatCannotBeUsedAreRefusedBeforeLoading() async throws {
        let url = try ReferenceModel.chatURL()
        let closed = "127.0.0.1:\(try RPCServerProcess.freePort())"
        await #expect {
            _ = try await LocalModel.load(from: url, configuration: .init(gpuLayers: 20, rpcServers: [closed]))
        } throws: { error in
            guard case LocalModel.Error.remoteServerUnreachable(let endpoint, let reason) = error else { return false }
            return endpoint == closed && reason.contains("cannot connect")
        }
        for (servers, split) in [(["localhost"], nil), (["a:1", "a:1"], nil), (["a:99999"], nil), (["a:1"], [-1.0]),
                                 ([String](), [Double]())] as [([String], [Double]?)] {
            await #expect(throws: LocalModel.Error.self, "\(servers) \(String(describing: split))") {
                _ = try await LocalModel.load(from: url, configuration: .init(rpcServers: servers, tensorSplit: split))
            }
        }
        await #expect {
            _ = try await LocalModel.load(from: url, configuration: .init(memoryFit: .automatic, rpcServers: ["127.0.0.1:1"]))
        } throws: { error in
            guard case LocalModel.Error.invalidOption(let name, _) = error else { return false }
            return name == "memoryFit"
        }
    }

    @Test func theCommandLineSplitsAModelAcrossServers() throws {
        let servers = [try RPCServerProcess(), try RPCServerProcess()]
        let model = try ReferenceModel.chatURL().path
        let remote = try CommandRunner.llmkit(["run", "-m", model, "--rpc", servers.map(\.endpoint).joined(separator: ","),
                                               "-ngl", "20", "-ts", "1,1", "--temperature", "0", "-n", "24",
                                               "The capital of France is"])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.stdout.count > 20)
        for server in servers { #expect(server.output().contains("Accepted client connection")) }

        let bad = try CommandRunner.llmkit(["run", "-m", model, "--rpc", "nohost", "hi"])
        #expect(bad.status == 1 && bad.stderr.contains("nohost"))
        let refused = try CommandRunner.llmkit(["run", "-m", model, "--rpc", "127.0.0.1:\(try RPCServerProcess.freePort())", "hi"])
        #expect(refused.status == 1 && refused.stderr.contains("cannot connect"))
    }

    @Test func theServerWarnsWhenItIsNotOnLoopbackAndRefusesWhatCannotWork() throws {
        let port = try RPCServerProcess.freePort()
        let (process, reader) = try CommandRunner.launch(try CommandRunner.llmkit(),
                                                         ["rpc-server", "--host", "0.0.0.0", "--port", String(port)], stdin: nil)
        let deadline = ContinuousClock.now + .seconds(20)
        while !reader.standardErrorSoFar.contains("warning") && ContinuousClock.now < deadline && process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(process.isRunning)
        process.terminate()
        process.waitUntilExit()
        #expect(reader.finish().1.contains("no authentication or encryption"))

        let unknown = try CommandRunner.llmkit(["rpc-server", "--port", String(port), "--device", "NoSuchDevice"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no device named 'NoSuchDevice'"))
        let server = try RPCServerProcess()
        let taken = try CommandRunner.llmkit(["rpc-server", "--port", String(server.port)])
        #expect(taken.status == 1 && taken.stderr.contains("cannot listen"))
        let notIPv4 = try CommandRunner.llmkit(["rpc-server", "--host", "::1"])
        #expect(notIPv4.status == 1 && notIPv4.stderr.contains("'::1' is an IPv6 address, and ggml-rpc's server binds IPv4 only"),
                "\(notIPv4.stderr)")
        #expect(try CommandRunner.llmkit(["rpc-server", "--port", "70000"]).status == 2)
    }

    @Test func theLibrarysServerRefusesValuesThatCannotWorkBeforeServing() throws {
        #expect(throws: RPCDeviceServer.Error.invalidOption(name: "port", reason: "0 is not between 1 and 65535")) {
            try RPCDeviceServer(port: 0).run()
        }
        #expect(throws: RPCDeviceServer.Error.invalidOption(name: "threads", reason: "0 is not between 1 and 1024")) {
            try RPCDeviceServer(port: 50052, threads: 0).run()
        }
        let file = FileManager.default.temporaryDirectory.appending(path: "llmkit-rpc-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            try RPCDeviceServer(port: 50052, cacheDirectory: file.appending(path: "cache")).run()
        } throws: { error in
            guard case RPCDeviceServer.Error.invalidOption(let name, _) = error else { return false }
            return name == "cacheDirectory"
        }
        #expect {
            try RPCDeviceServer(host: "not-an-address", port: try RPCServerProcess.freePort()).run()
        } throws: { error in
            guard case RPCDeviceServer.Error.invalidOption("host", let reason) = error else { return false }
            return reason.contains("not an IPv4 address")
        }
        #expect(RPCDeviceServer(host: "0.0.0.0").isExposed && !RPCDeviceServer().isExposed)
        // Loopback is loopback in every spelling (Daemon #11: ::1 was called "not loopback").
        #expect(!RPCDeviceServer(host: "127.0.0.2").isExposed && !RPCDeviceServer(host: "::1").isExposed)
    }
}
