import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Issue 32 point 6: names cannot shadow. One lookup order (a selection, a library id or
/// `default`, a name a user gave, a catalog id, a name from a file or a cache), and names that
/// would shadow a rank above them are refused; on a scratch library over the real bootstrap
/// cache (its default model and Gemma).
@Suite("Model names and their lookup order")
struct ModelNameLookupTests {
    let folder: TemporaryDirectory
    let library: ModelLibrary

    init() throws {
        folder = try TemporaryDirectory()
        // The bootstrap's cache: ~/.cache/llmkit, whose models/ holds default.gguf and Gemma.
        let cache = try ReferenceModel.url().deletingLastPathComponent().deletingLastPathComponent()
        library = LibraryFixtures.library(in: folder.url, environment: ["LLMKIT_CACHE": cache.path])
    }

    /// A small model whose `general.name` is `title`, in its own file; files of different names
    /// differ in content too (`general.description`), so that none is another's duplicate.
    func model(_ fileName: String, title: String) throws -> URL {
        var builder = GGUFBuilder()
        builder.keyValues += [("general.name", .string(title)), ("general.description", .string(fileName))]
        builder.tensors = [.init(name: "weights", dimensions: [1 << 18], offset: 0)]
        builder.dataBytes = 1 << 20
        let url = folder.file(fileName)
        try builder.write(to: url)
        return url
    }

    /// Whether `error` is ``ModelLibrary/Error/invalidName(reason:)`` with `words` in its reason.
    static func isInvalidName(_ error: any Error, saying words: String) -> Bool {
        guard case ModelLibrary.Error.invalidName(let reason) = error else { return false }
        return reason.contains(words)
    }

    @Test("Daemon #6: a file whose general.name is a catalog id, default or another model's id keeps its own name; those names still find what they found")
    func fileNamesNeverShadow() async throws {
        let first = try await library.importModel(at: model("first.gguf", title: "First"))
        let shadowCatalog = try await library.importModel(at: model("small.gguf", title: "gemma-3-270m"))
        let shadowDefault = try await library.importModel(at: model("other.gguf", title: "default"))
        let shadowID = try await library.importModel(at: model("third.gguf", title: first.id))
        #expect(shadowCatalog.name == "small" && !shadowCatalog.isNameGiven && shadowCatalog.id.hasPrefix("small-"))
        #expect(shadowDefault.name == "other" && shadowID.name == "third")

        let gemma = try #require(try await library.entry(named: "gemma-3-270m"))
        #expect(gemma.source == .bootstrap && gemma.sha256 == LibraryFixtures.gemmaSHA256)
        #expect(try await library.file(named: "gemma-3-270m") == gemma.url)
        #expect(try await library.entry(named: "default")?.source == .bootstrap)
        #expect(try await library.model(first.id) == first)
        await #expect(throws: ModelLibrary.Error.readOnlyModel("gemma-3-270m")) { try await library.delete("gemma-3-270m") }
        #expect(try await library.models().count == 4)
    }

    @Test("Daemon #6: a name a user gives cannot be default, a selection, a path, another file's catalog id, or another model's id or given name")
    func givenNamesAreChecked() async throws {
        let source = try model("tiny.gguf", title: "Tiny")
        let refused = [("default", "scripts/bootstrap"), ("DEFAULT", "scripts/bootstrap"), ("library:tiny", "selection"),
                       ("hf-cache:org/x", "selection"), ("ollama:gemma3", "selection"), ("file:x", "selection"),
                       ("models/tiny", "file path"), ("back\\slash", "file path"), ("tiny.GGUF", "file path"),
                       ("gemma-3-270m", "catalog id"), ("Gemma-3-270M", "catalog id"), ("lfm2-2.6b", "catalog id")]
        for (name, words) in refused {
            await #expect("\(name)") { try await library.importModel(at: source, name: name) } throws: { error in
                Self.isInvalidName(error, saying: words)
            }
            #expect(throws: ModelLibrary.Error.self, "\(name)") {
                try ModelLibrary.DownloadRequest(urls: [URL(string: "http://127.0.0.1:1/tiny.gguf")!], name: name)
            }
        }
        #expect(try await library.models().isEmpty)

        let named = try await library.importModel(at: source, name: ".tiny")       // a leading dot is fine
        #expect(named.isNameGiven && named.name == ".tiny")
        let other = try model("other.gguf", title: "Other")
        await #expect(throws: ModelLibrary.Error.nameTaken(".tiny", modelID: named.id)) {
            try await library.importModel(at: other, name: ".tiny")
        }
        await #expect(throws: ModelLibrary.Error.nameTaken(named.id, modelID: named.id)) {
            try await library.importModel(at: other, name: named.id)
        }
        let second = try await library.importModel(at: other)
        await #expect(throws: ModelLibrary.Error.nameTaken(".tiny", modelID: named.id)) { try await library.rename(second.id, to: ".tiny") }
        await #expect { try await library.rename(second.id, to: "gemma-3-270m") } throws: { error in
            Self.isInvalidName(error, saying: "catalog id")
        }
        #expect(try await library.models().map(\.name) == [".tiny", "Other"])

        // A download whose SHA-256 is the catalog model's may take its id; one not known to be may not.
        let gemmaURL = URL(string: "http://127.0.0.1:1/gemma.gguf")!
        #expect(try ModelLibrary.DownloadRequest(urls: [gemmaURL], sha256: LibraryFixtures.gemmaSHA256, name: "gemma-3-270m").name
                == "gemma-3-270m")
        #expect(try ModelLibrary.DownloadRequest(reference: "gemma-3-270m", name: "gemma-3-270m").name == "gemma-3-270m")
    }

    @Test("Daemon #6: a library id, then a name a user gave, then a catalog id, then names from files; a tie is an ambiguity error, never a guess")
    func lookupOrder() async throws {
        let alpha = try await library.importModel(at: model("alpha.gguf", title: "Shared"))
        let beta = try await library.importModel(at: model("beta.gguf", title: "Shared"))
        let ids = [alpha.id, beta.id].sorted()                                  // as the library lists them
        await #expect(throws: ModelLibrary.Error.ambiguousName("Shared", ids: ids)) {
            try await library.entry(named: "Shared")
        }
        await #expect(throws: ModelLibrary.Error.ambiguousName("Shared", ids: ids)) {
            try await library.delete("Shared")
        }
        // A name a user gives outranks the same name from a file.
        let renamed = try await library.rename(beta.id, to: "Shared")
        #expect(renamed.isNameGiven && renamed.id == beta.id)
        #expect(try await library.model("Shared") == renamed)
        #expect(try await library.entry(named: "library:\(alpha.id)")?.id == alpha.id)
        #expect(try await library.entry(named: "library:Shared") == nil)                     // `library:` takes ids only

        // Records of an older version, without `name_given`, named `default` and a catalog id: read
        // as names from files, they find nothing over the bootstrap's model and the catalog's.
        for (record, name) in [(alpha, "default"), (renamed, "gemma-3-270m")] {
            let metadata = library.root.appending(path: record.id).appending(path: "metadata.json")
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: metadata)) as? [String: Any])
            json["name"] = name
            json["name_given"] = nil
            try JSONSerialization.data(withJSONObject: json).write(to: metadata)
        }
        #expect(try await library.entry(named: "default")?.source == .bootstrap)
        #expect(try await library.entry(named: "gemma-3-270m")?.source == .bootstrap)
        #expect(try await library.entry(named: alpha.id)?.name == "default")                    // still found by id
        await #expect(throws: ModelLibrary.Error.readOnlyModel("gemma-3-270m")) { try await library.delete("gemma-3-270m") }
        #expect(try await library.models().count == 2)
    }
}
