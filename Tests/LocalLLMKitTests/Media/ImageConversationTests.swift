import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Images in conversations, through the real SmolLM2 and the synthetic projector that
/// scripts/synth-vision-model writes (random weights: the answers mean nothing, but they are
/// deterministic, and they depend on the image).
@Suite("Images in conversations", .serialized)
struct ImageConversationTests {
    static func load(_ configuration: LocalModel.Configuration = .init(contextLength: 1024)) async throws -> LocalModel {
        var configuration = configuration
        if configuration.weights.projector == .automatic { configuration.weights.projector = .file(try ReferenceModel.visionProjectorURL()) }
        return try await LocalModel.load(from: ReferenceModel.chatURL(), configuration: configuration)
    }

    static func image(_ name: String) throws -> MediaAttachment {
        try MediaAttachment.image(contentsOf: ReferenceModel.imageURL(name))
    }

    static let greedy = CompletionOptions(maximumResponseTokens: 12, sampling: .greedy)

    @Test("an image is encoded once: the next turn finds it in the KV cache, a new conversation in the projector's cache")
    func encodedOnce() async throws {
        let model = try await Self.load()
        #expect(model.acceptsImages && !model.acceptsAudio)
        let chat = try Conversation(model: model)
        let first = try await chat.respond(to: "Describe this image.", attachments: [try Self.image("shapes-100x100.png")],
                                           options: Self.greedy)
        #expect(!first.text.isEmpty)
        #expect(first.statistics.encodedMedia == 1)
        let second = try await chat.respond(to: "And its colours?", options: Self.greedy)
        #expect(second.statistics.encodedMedia == 0)
        // The whole first turn, its 64 image positions included, came from the cache.
        #expect(second.statistics.cachedPromptTokens >= first.statistics.promptTokens)
        let again = try Conversation(model: model, instructions: "Answer briefly.")
        let third = try await again.respond(to: "Describe this image.", attachments: [try Self.image("shapes-100x100.png")],
                                            options: Self.greedy)
        #expect(third.statistics.encodedMedia == 0)
        #expect(await model.encodedMediaCount() == 1)
        // The transcript keeps the image with its message.
        #expect(await chat.transcript.first { $0.role == .user }?.attachments.count == 1)
    }

    @Test("two different images give different answers; the same image gives the same answer")
    func differentImages() async throws {
        let model = try await Self.load()
        func answer(_ name: String) async throws -> String {
            try await Conversation(model: model).respond(to: "Describe this image.", attachments: [try Self.image(name)],
                                                         options: .init(maximumResponseTokens: 16, sampling: .greedy)).text
        }
        let gradient = try await answer("gradient-64x48.png"), shapes = try await answer("shapes-100x100.png")
        #expect(gradient != shapes)
        #expect(try await answer("gradient-64x48.png") == gradient)
        // Raw pixels of the same picture are the same image to the model.
        var bytes: [UInt8] = []
        for index in 0..<(64 * 48) {
            let red = UInt8(index % 64 * 4), green = UInt8(index / 64 * 5)
            bytes += [red, green, 128]
        }
        let pixels = Data(bytes)
        let fromPixels = try await Conversation(model: model).respond(
            to: "Describe this image.", attachments: [.image(rgb: pixels, width: 64, height: 48)], options: Self.greedy)
        #expect(!fromPixels.text.isEmpty && fromPixels.statistics.encodedMedia == 1)
    }

    @Test("4 requests with images and 4 without, at once, give the texts they give alone")
    func batching() async throws {
        let model = try await Self.load(.init(contextLength: 512, parallelSequences: 8))
        let names = ["gradient-64x48.png", "shapes-100x100.png", "stripes-80x60.bmp", "shapes-100x100.png"]
        let prompts = ["Name a colour.", "Count to three.", "Say hello.", "What is two plus two?"]
        let options = CompletionOptions(maximumResponseTokens: 16, sampling: .greedy)
        func run(_ index: Int) async throws -> String {
            let chat = try Conversation(model: model, configuration: .init(reusesPromptCache: false))
            if index < 4 {
                return try await chat.respond(to: "Describe this image.", attachments: [try Self.image(names[index])], options: options).text
            }
            return try await chat.respond(to: prompts[index - 4], options: options).text
        }
        var alone: [String] = []
        for index in 0..<8 { alone.append(try await run(index)) }
        let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<8 { group.addTask { (index, try await run(index)) } }
            var texts = [String](repeating: "", count: 8)
            for try await (index, text) in group { texts[index] = text }
            return texts
        }
        #expect(together == alone)
    }

    @Test("structured output and preflight with an image; a saved conversation keeps it")
    func structuredAndPreflight() async throws {
        struct Caption: Decodable, Sendable { var caption: String }
        let model = try await Self.load()
        let chat = try Conversation(model: model)
        let image = try Self.image("gradient-64x48.png")
        let plain = try await chat.preflight("Describe this image.")
        let withImage = try await chat.preflight("Describe this image.", attachments: [image])
        #expect(withImage.promptTokens == plain.promptTokens + 64)
        let caption = try await chat.respond(to: "Caption this image.", attachments: [image], generating: Caption.self,
                                             options: .init(maximumResponseTokens: 48, sampling: .greedy))
        #expect(caption.statistics.encodedMedia <= 1)
        _ = caption.content.caption
        let folder = try TemporaryDirectory()
        let file = folder.url.appending(path: "chat.llmconv")
        try await chat.save(to: file)
        let restored = try Conversation(model: model)
        try await restored.load(from: file)
        #expect(await restored.transcript.first { $0.role == .user }?.attachments == [image])
        let next = try await restored.respond(to: "Shorter.", options: Self.greedy)
        #expect(next.statistics.encodedMedia == 0 && !next.text.isEmpty)
    }

    @Test("hostile images are typed errors, and the model answers afterwards")
    func hostileImages() async throws {
        let model = try await Self.load(.init(contextLength: 1024, mediaLimits: .init(bytes: 64 << 10, count: 3)))
        let chat = try Conversation(model: model)
        let png = try Data(contentsOf: ReferenceModel.imageURL("shapes-100x100.png"))
        func failure(_ attachments: [MediaAttachment]) async -> (any Error)? {
            do {
                _ = try await chat.respond(to: "Describe this image.", attachments: attachments, options: Self.greedy)
                return nil
            } catch {
                return error
            }
        }
        func expectInvalid(_ attachment: MediaAttachment, _ reason: String) async {
            let error = await failure([attachment])
            guard case MediaAttachment.Error.invalid(_, let said)? = error as? MediaAttachment.Error else {
                Issue.record("expected .invalid for \(reason), got \(String(describing: error))")
                return
            }
            #expect(said.contains(reason), "\(said)")
        }
        await expectInvalid(.image(png.prefix(png.count / 2)), "could not be decoded")
        await expectInvalid(.image(Data("GIF89a".utf8) + Data([16, 0, 16, 0]) + Data(repeating: 0xFF, count: 64)), "could not be decoded")
        await expectInvalid(.image(Data(repeating: 0x42, count: 1000)), "not a PNG, JPEG, BMP or GIF")
        await expectInvalid(.image(Data()), "it is empty")
        await expectInvalid(.image(ForgedMediaHeader.png(width: 0, height: 0)), "0 × 0")
        await expectInvalid(.image(rgb: Data(count: 10), width: 4, height: 4), "10 bytes of RGB for 4 × 4 pixels")
        await expectInvalid(.image(rgb: Data(), width: 0, height: 4), "0 × 4")
        let huge = await failure([.image(ForgedMediaHeader.png(width: 30_000, height: 30_000))])
        #expect(huge as? MediaAttachment.Error == .tooManyPixels(width: 30_000, height: 30_000, limit: 16 << 20))
        let large = await failure([.image(png + Data(count: 64 << 10))])
        #expect(large as? MediaAttachment.Error == .tooManyBytes(bytes: png.count + (64 << 10), limit: 64 << 10))
        let many = await failure(Array(repeating: .image(png), count: 4))
        #expect(many as? MediaAttachment.Error == .tooMany(count: 4, limit: 3))
        let sound = await failure([.audio(Data("RIFF\0\0\0\0WAVEfmt ".utf8) + Data(count: 64))])
        #expect(sound as? MediaAttachment.Error == .unsupportedKind(index: 0, kind: "audio (WAV)"))
        // A file that is a folder, or missing.
        #expect(throws: MediaAttachment.Error.self) { try MediaAttachment.image(contentsOf: URL(filePath: "/tmp")) }
        #expect(throws: MediaAttachment.Error.self) { try MediaAttachment.image(contentsOf: URL(filePath: "/nonexistent.png")) }
        // Nothing of that reached the transcript, and the model still answers, with an image.
        #expect(await chat.transcript.isEmpty)
        let answer = try await chat.respond(to: "Describe this image.", attachments: [.image(png)], options: Self.greedy)
        #expect(!answer.text.isEmpty)
    }

    @Test("media limits that could overflow are refused at load; a NUL in a message beside an image reaches the model")
    func limitsAndText() async throws {
        for limits in [MediaAttachment.Limits(pixels: .max), .init(side: 1 << 20), .init(bytes: 0), .init(count: -1)] {
            await #expect(throws: LocalModel.Error.self) {
                _ = try await Self.load(.init(contextLength: 512, mediaLimits: limits))
            }
        }
        let model = try await Self.load()
        let image = try Self.image("gradient-64x48.png")
        let plain = try await Conversation(model: model).preflight("Describe this image.", attachments: [image])
        let withNUL = try await Conversation(model: model).preflight("Describe this image.\u{0}And more words after it.",
                                                                     attachments: [image])
        // The text after the NUL is tokenized too, not cut off there.
        #expect(withNUL.promptTokens > plain.promptTokens + 3)
    }

    @Test("projectors: another model's, a model file, a damaged one are refused; one beside the model is found")
    func projectors() async throws {
        func loadError(_ projector: URL) async -> LocalModel.Error? {
            do {
                _ = try await Self.load(.init(contextLength: 512, projector: .file(projector)))
                return nil
            } catch {
                return error as? LocalModel.Error
            }
        }
        guard case .invalidProjector(_, let width)? = await loadError(try ReferenceModel.otherWidthProjectorURL()) else {
            Issue.record("a projector of width 640 loaded for SmolLM2")
            return
        }
        #expect(width.contains("mismatch between text model (n_embd = 576) and mmproj (n_embd = 640)"), "\(width)")
        guard case .invalidProjector(_, let architecture)? = await loadError(try ReferenceModel.chatURL()) else {
            Issue.record("a model file loaded as a projector")
            return
        }
        #expect(architecture.contains("'llama', not a projector's"), "\(architecture)")
        let folder = try TemporaryDirectory()
        let damaged = folder.url.appending(path: "damaged.gguf")
        try Data(try Data(contentsOf: ReferenceModel.visionProjectorURL()).prefix(4096)).write(to: damaged)
        guard case .invalidProjector(_, let truncated)? = await loadError(damaged) else {
            Issue.record("a truncated projector loaded")
            return
        }
        #expect(truncated.contains("truncated") || truncated.contains("damaged"), "\(truncated)")
        // Beside the model: the projector of its width is found; the other one is passed over.
        let model = folder.url.appending(path: "smol.gguf")
        try FileManager.default.createSymbolicLink(at: model, withDestinationURL: try ReferenceModel.chatURL())
        try FileManager.default.createSymbolicLink(at: folder.url.appending(path: "mmproj-other.gguf"),
                                                   withDestinationURL: try ReferenceModel.otherWidthProjectorURL())
        let alone = try await LocalModel.load(from: model, configuration: .init(contextLength: 512))
        #expect(!alone.acceptsImages && alone.projectorURL == nil)
        try FileManager.default.createSymbolicLink(at: folder.url.appending(path: "mmproj-smol.gguf"),
                                                   withDestinationURL: try ReferenceModel.visionProjectorURL())
        let found = try await LocalModel.load(from: model, configuration: .init(contextLength: 512))
        #expect(found.acceptsImages && found.projectorURL?.lastPathComponent == "mmproj-smol.gguf")
        let none = try await LocalModel.load(from: model, configuration: .init(contextLength: 512, projector: .none))
        #expect(!none.acceptsImages)
        await #expect(throws: LocalModel.Error.noProjector(path: model.path)) {
            _ = try await Conversation(model: none).respond(to: "Describe this image.", attachments: [try Self.image("gradient-64x48.png")])
        }
    }
}
