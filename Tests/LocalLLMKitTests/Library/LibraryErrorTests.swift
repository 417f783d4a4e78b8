import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// The model library's errors that no other suite reaches: each through the public API.
@Suite("Model library errors")
struct LibraryErrorTests {
    @Test("no default model installed is an error that lists where it looked")
    func noDefaultModel() throws {
        let folder = try TemporaryDirectory()
        let expected = folder.url.appending(path: "models/default.gguf").path
        #expect(throws: ModelLibrary.Error.noDefaultModel(searched: [expected])) {
            try LocalModel.defaultModelURL(environment: ["LLMKIT_CACHE": folder.url.path])
        }
    }

    @Test("an empty or multi-line display name is refused and nothing is imported")
    func invalidName() async throws {
        let folder = try TemporaryDirectory()
        let library = LibraryFixtures.library(in: folder.url)
        let source = try LibraryFixtures.smallModel(in: folder.url)
        for name in ["  ", "two\nlines", String(repeating: "n", count: 201)] {
            await #expect("\(name.debugDescription)") { try await library.importModel(at: source, name: name) } throws: { error in
                guard case ModelLibrary.Error.invalidName(let reason) = error else { return false }
                return reason.contains("name")
            }
        }
        #expect(try await library.models().isEmpty)
    }

    @Test("a library whose folder is a file fails with the path instead of importing")
    func storageFailed() async throws {
        let folder = try TemporaryDirectory()
        let blocker = folder.file("library")
        try Data("not a folder".utf8).write(to: blocker)
        let library = ModelLibrary(root: blocker)
        let source = try LibraryFixtures.smallModel(in: folder.url)
        await #expect {
            _ = try await library.importModel(at: source)
        } throws: { error in
            guard case ModelLibrary.Error.storageFailed(let path, _) = error else { return false }
            return path.hasPrefix(blocker.path)
        }
        #expect(try String(contentsOf: blocker, encoding: .utf8) == "not a folder")
    }
}
