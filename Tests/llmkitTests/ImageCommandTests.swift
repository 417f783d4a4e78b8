import Foundation
import Testing

/// `--image`, `--mmproj` and `/image` through the real CLI, SmolLM2 and the synthetic projector,
/// compared with llama.cpp's own multimodal tools on the same files.
@Suite("llmkit with images", .serialized)
struct ImageCommandTests {
    static let images = ["gradient-64x48.png", "shapes-100x100.png", "stripes-80x60.bmp"]

    /// What llama-mtmd-cli and llmkit run print, trimmed: llama-mtmd-cli frames the answer in
    /// newlines, and a chat answer is trimmed.
    static func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test("greedy run --image equals llama-mtmd-cli's for three images and two prompts; different images differ",
          arguments: ["Describe this image.", "What is in the picture?"])
    func parityWithMtmdCLI(prompt: String) throws {
        let model = try ReferenceModel.chatURL().path, projector = try ReferenceModel.visionProjectorURL().path
        var answers: [String] = []
        for name in Self.images {
            let image = try ReferenceModel.imageURL(name).path
            // --jinja: llama-mtmd-cli then renders the model's own template, as llmkit does.
            let reference = try CommandRunner.run(CommandRunner.llamaTool("llama-mtmd-cli"), [
                "-m", model, "--mmproj", projector, "--image", image, "--jinja", "-p", prompt,
                "-n", "24", "--temp", "0", "-t", "2", "-c", "4096", "--no-repack",
            ])
            #expect(reference.status == 0, "llama-mtmd-cli failed: \(reference.stderr.suffix(500))")
            let ours = try CommandRunner.llmkit(["run", "-m", model, "--mmproj", projector, "--image", image,
                                                 "-n", "24", "--temperature", "0", "-t", "2", "-c", "4096", prompt])
            #expect(ours.status == 0, "\(ours.stderr)")
            #expect(!Self.trimmed(ours.stdout).isEmpty)
            #expect(Self.trimmed(ours.stdout) == Self.trimmed(reference.stdout),
                    "\(name): llama-mtmd-cli \(reference.stdout.debugDescription), llmkit \(ours.stdout.debugDescription)")
            answers.append(Self.trimmed(ours.stdout))
        }
        #expect(Set(answers).count == answers.count, "two images gave the same answer: \(answers)")
    }

    @Test("the server's answer to an image_url request equals llama-server's (--mmproj); /v1/models says vision")
    func serverParity() throws {
        let model = try ReferenceModel.chatURL().path, projector = try ReferenceModel.visionProjectorURL().path
        let port = try FreePort.find()
        let (reference, referenceOutput) = try CommandRunner.launch(CommandRunner.llamaTool("llama-server"), [
            "-m", model, "--mmproj", projector, "--alias", "default", "--jinja", "-t", "2", "-c", "4096", "-np", "1",
            "--no-repack", "--host", "127.0.0.1", "--port", String(port), "--no-webui",
        ], stdin: nil)
        defer {
            kill(reference.processIdentifier, SIGKILL)
            _ = CommandRunner.finish(reference, referenceOutput, deadline: .now + .seconds(10))
        }
        let (ours, output, base) = try CommandRunner.startServing(["-m", "default=\(model)", "--mmproj", projector, "-t", "2",
                                                                   "-c", "4096", "--parallel", "1"])
        defer {
            kill(ours.processIdentifier, SIGTERM)
            _ = CommandRunner.finish(ours, output, deadline: .now + .seconds(30))
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let health = try CommandRunner.run(URL(filePath: "/usr/bin/curl"), ["-s", "http://127.0.0.1:\(port)/health"])
            if health.stdout.contains("ok") { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Support/image_server_parity.py")
        let images = try Self.images.map { try ReferenceModel.imageURL($0).path }
        let outcome = try CommandRunner.run(URL(filePath: "/usr/bin/env"), [
            "python3", script.path, "--ours", base.absoluteString, "--reference", "http://127.0.0.1:\(port)/v1",
            "--model", "default",
        ] + images)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let pairs = try #require(result["pairs"] as? [[String: Any]])
        #expect(pairs.count == 6)
        for pair in pairs {
            let ours = try #require(pair["ours"] as? [String: Any]), theirs = try #require(pair["reference"] as? [String: Any])
            #expect(ours["text"] as? String == theirs["text"] as? String, "\(pair)")
            #expect(ours["prompt_tokens"] as? Int == theirs["prompt_tokens"] as? Int, "\(pair)")
            #expect(!((ours["text"] as? String) ?? "").isEmpty)
        }
        let refused = try #require(result["refused"] as? [String: Any])
        #expect(refused["status"] as? Int == 400)
        #expect((refused["message"] as? String)?.contains("--allow-image-urls") == true, "\(refused)")
        let models = try #require((result["models"] as? [String: Any])?["data"] as? [[String: Any]])
        #expect(models.first?["capabilities"] as? [String] == ["completion", "vision"])
    }

    @Test("bad images and projectors: one line naming what was wrong, exit 1; misused flags exit 2")
    func errors() throws {
        let folder = try ScratchFolder()
        let projector = try ReferenceModel.visionProjectorURL().path, image = try ReferenceModel.imageURL("shapes-100x100.png").path
        let garbage = folder.path("garbage.png")
        try Data(repeating: 7, count: 500).write(to: URL(filePath: garbage))
        var huge = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        for side: UInt32 in [30_000, 30_000] { withUnsafeBytes(of: side.bigEndian) { huge += $0 } }
        let hugePath = folder.path("huge.png")
        try (huge + Data(count: 9)).write(to: URL(filePath: hugePath))
        let chat = try ReferenceModel.chatURL().path
        let cases: [([String], String)] = [
            (["--no-mmproj", "--image", image], "has no projector, so it cannot take images"),
            (["--mmproj", projector, "--image", garbage], "attachment 1 is not a usable image or clip: not a PNG, JPEG, BMP or GIF"),
            (["--mmproj", projector, "--image", hugePath], "an image of 30000 × 30000 pixels is over the limit"),
            (["--mmproj", projector, "--image", folder.path("missing.png")], "cannot read the attachment"),
            (["--mmproj", try ReferenceModel.otherWidthProjectorURL().path, "--image", image], "mismatch between text model (n_embd = 576)"),
            (["--mmproj", chat, "--image", image], "not a projector's ('clip')"),
        ]
        for (arguments, message) in cases {
            let outcome = try CommandRunner.llmkit(["run", "-m", chat, "-n", "4"] + arguments + ["Describe this image."])
            #expect(outcome.status == 1, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        }
        let raw = try CommandRunner.llmkit(["run", "-m", chat, "--raw", "--image", image, "x"])
        #expect(raw.status == 2 && raw.stderr.contains("--image needs chat mode"), "\(raw.stderr)")
        let both = try CommandRunner.llmkit(["run", "-m", chat, "--mmproj", projector, "--no-mmproj", "x"])
        #expect(both.status == 2 && both.stderr.contains("contradict"), "\(both.stderr)")
    }

    @Test("info names the projector a model would load and what it takes; none beside the bootstrap's models")
    func info() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createSymbolicLink(at: folder.url.appending(path: "smol.gguf"), withDestinationURL: try ReferenceModel.chatURL())
        try FileManager.default.createSymbolicLink(at: folder.url.appending(path: "mmproj-smol.gguf"),
                                                   withDestinationURL: try ReferenceModel.visionProjectorURL())
        let found = try CommandRunner.llmkit(["info", folder.path("smol.gguf")])
        #expect(found.stdout.contains("projector         \(folder.path("mmproj-smol.gguf")) (takes images)"), "\(found.stdout)")
        let json = try CommandRunner.llmkit(["info", "--json", folder.path("smol.gguf")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["projector"] as? [String: Any])?["images"] as? Bool == true)
        let none = try CommandRunner.llmkit(["info", "--no-mmproj", folder.path("smol.gguf")])
        #expect(none.stdout.contains("projector         none"), "\(none.stdout)")
        let plain = try CommandRunner.llmkit(["info", "--json", try ReferenceModel.chatURL().path])
        let plainObject = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(plainObject["projector"] == nil && plainObject["path"] != nil)
    }

    @Test("serve --allow-image-urls fetches an http image as a data URL would send it; a private address needs --allow-local-network")
    func imageURLs() throws {
        let model = try ReferenceModel.chatURL().path, projector = try ReferenceModel.visionProjectorURL().path
        let folder = try ReferenceModel.imageURL("shapes-100x100.png").deletingLastPathComponent().path
        let port = try FreePort.find()
        let (files, filesOutput) = try CommandRunner.launch(URL(filePath: "/usr/bin/env"), [
            "python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder,
        ], stdin: nil)
        defer {
            kill(files.processIdentifier, SIGKILL)
            _ = CommandRunner.finish(files, filesOutput, deadline: .now + .seconds(10))
        }
        let url = "http://127.0.0.1:\(port)/shapes-100x100.png"
        func ask(_ base: URL, _ image: String) throws -> CommandRunner.Output {
            let body = #"{"model":"default","max_tokens":12,"temperature":0,"messages":[{"role":"user","content":["#
                + #"{"type":"image_url","image_url":{"url":""# + image + #""}},{"type":"text","text":"Describe this image."}]}]}"#
            return try CommandRunner.run(URL(filePath: "/usr/bin/curl"), ["-s", "-H", "Content-Type: application/json",
                                                                        "-d", body, base.absoluteString + "/chat/completions"])
        }
        let data = "data:image/png;base64," + (try Data(contentsOf: ReferenceModel.imageURL("shapes-100x100.png"))).base64EncodedString()
        for (flags, fetched) in [(["--allow-image-urls", "--allow-local-network"], true), (["--allow-image-urls"], false)] {
            let (server, output, base) = try CommandRunner.startServing(["-m", "default=\(model)", "--mmproj", projector] + flags)
            defer {
                kill(server.processIdentifier, SIGTERM)
                _ = CommandRunner.finish(server, output, deadline: .now + .seconds(30))
            }
            let answer = try ask(base, url)
            if fetched {
                let reference = try ask(base, data)
                #expect(answer.stdout.contains("\"content\"") && !reference.stdout.isEmpty)
                let content = { (text: String) in
                    ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]).flatMap {
                        (($0["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
                    }
                }
                #expect(content(answer.stdout) != nil && content(answer.stdout) == content(reference.stdout), "\(answer.stdout)")
            } else {
                #expect(answer.stdout.contains("private, local or reserved address"), "\(answer.stdout)")
            }
        }
    }

    @Test("pull org/repo:QUANT fetches the listing's mmproj into the model's folder, where run --image finds it; a bad one fails the pull")
    func pullWithProjector() throws {
        let library = try ScratchLibrary()
        let (served, server) = try library.downloadServer()
        try FileManager.default.createSymbolicLink(at: served.appending(path: "SmolLM2-Q4_1.gguf"), withDestinationURL: try ReferenceModel.chatURL())
        try FileManager.default.createSymbolicLink(at: served.appending(path: "mmproj-SmolLM2-f16.gguf"),
                                                   withDestinationURL: try ReferenceModel.visionProjectorURL())
        let listing = library.url("listing.txt")
        try "README.md\nSmolLM2-Q4_1.gguf\nmmproj-SmolLM2-f16.gguf\n".write(to: listing, atomically: true, encoding: .utf8)
        let environment = library.environment.merging(["HF_ENDPOINT": server.url("/hf").absoluteString]) { $1 }
        let pull = try CommandRunner.llmkit(["pull", "org/smol:Q4_1", "--listing", listing.path], environment: environment)
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(pull.stderr.contains("with its projector mmproj-SmolLM2-f16.gguf"), "\(pull.stderr)")
        let id = pull.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(library.contents(of: library.root.appending(path: id)).contains("mmproj-SmolLM2-f16.gguf"))
        let image = try ReferenceModel.imageURL("shapes-100x100.png").path
        let run = try CommandRunner.llmkit(["run", "-m", id, "--image", image, "-n", "8", "--temperature", "0", "--json",
                                            "Describe this image."], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"encoded_media\" : 1"), "\(run.stdout)")
        // A listing whose mmproj is no projector: the pull fails, and no model is registered.
        let other = try ScratchLibrary()
        let (otherServed, otherServer) = try other.downloadServer()
        try FileManager.default.createSymbolicLink(at: otherServed.appending(path: "SmolLM2-Q4_1.gguf"), withDestinationURL: try ReferenceModel.chatURL())
        _ = try other.tinyModel("mmproj-fake.gguf", title: "Not a projector", in: otherServed)
        try "SmolLM2-Q4_1.gguf\nmmproj-fake.gguf\n".write(to: listing, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.llmkit(["pull", "org/smol:Q4_1", "--listing", listing.path],
                                               environment: other.environment.merging(["HF_ENDPOINT": otherServer.url("/hf").absoluteString]) { $1 })
        #expect(refused.status == 1 && refused.stderr.contains("not a projector's ('clip')"), "\(refused.stderr)")
        #expect(try other.listing().isEmpty)
    }

    @Test("the REPL's /image attaches to the next message; the next turn encodes nothing again")
    func replImage() throws {
        let image = try ReferenceModel.imageURL("gradient-64x48.png").path
        let input = "/image \(image)\nDescribe this image.\nShorter, please.\n/image\n/image /nonexistent.png\nThanks.\n"
        let outcome = try CommandRunner.llmkit(["chat", "-m", try ReferenceModel.chatURL().path, "--mmproj",
                                                try ReferenceModel.visionProjectorURL().path, "--stats", "-n", "8",
                                                "--temperature", "0"], stdin: input)
        #expect(outcome.stderr.contains("attached \(image) to the next message"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("usage: /image PATH"))
        #expect(outcome.stderr.contains("cannot read the attachment /nonexistent.png"))
        let stats = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("{\"") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(stats.map { $0["encoded_media"] as? Int } == [1, 0, 0], "\(outcome.stderr)")
        #expect((stats.dropFirst().first?["cached_tokens"] as? Int ?? 0) > 64)
        let without = try CommandRunner.llmkit(["chat", "-m", try ReferenceModel.chatURL().path, "--no-mmproj", "-n", "4"],
                                               stdin: "/image \(image)\nHi.\n")
        #expect(without.stderr.contains("has no projector"), "\(without.stderr)")
    }
}
