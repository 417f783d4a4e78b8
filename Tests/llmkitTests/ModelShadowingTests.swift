import Foundation
import LocalLLMKit
import Testing

/// Issue 32 point 6 through `llmkit`: no name shadows the catalog's ids or `default`, and
/// `--model`, `info`, `show` and `rm` resolve names in one documented order; on a scratch
/// library over the real bootstrap cache (its default model, SmolLM2, and Gemma).
@Suite("llmkit names that cannot shadow", .serialized)
struct ModelShadowingTests: ScratchLibrarySuite {
    let scratch: ScratchFolder
    let environment: [String: String]

    init() throws {
        scratch = try ScratchFolder()
        environment = scratch.libraryEnvironment
    }

    /// The JSON object a command prints, or nil when it fails.
    func object(_ arguments: [String]) throws -> [String: Any]? {
        let output = try llmkit(arguments)
        guard output.status == 0 else { return nil }
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
    }

    /// `llmkit list --json`, without the bootstrap's entry.
    func libraryModels() throws -> [[String: Any]] {
        let output = try llmkit(["list", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        return entries.filter { $0["source"] as? String == "library" }
    }

    @Test("Daemon #6: import --name default, a selection, a path or the catalog id of another model is refused with a one-line reason")
    func refusedNames() throws {
        let file = scratch.url.appending(path: "tiny.gguf")
        var builder = GGUFBuilder()
        builder.keyValues.append(("general.name", .string("Tiny")))
        builder.tensors = [.init(name: "weights", dimensions: [1 << 18], offset: 0)]
        builder.dataBytes = 1 << 20
        try builder.write(to: file)
        for (name, reason) in [("default", "invalid model name: default names the model that scripts/bootstrap installed"),
                               ("library:tiny", "invalid model name: a model name cannot start with library:"),
                               ("models/tiny", "invalid model name: a model name cannot contain / or \\ or end in .gguf"),
                               ("gemma-3-270m", "invalid model name: gemma-3-270m is the catalog id of Gemma 3 270M (Q4_K_M)")] {
            let output = try llmkit(["import", file.path, "--name", name])
            #expect(output.status == 1, "\(name)")
            #expect(output.stderr.contains(reason) && output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        }
        let pull = try llmkit(["pull", "http://127.0.0.1:1/tiny.gguf", "--name", "default"])
        #expect(pull.status == 1 && pull.stderr.contains("default names the model") && !pull.stderr.contains("connect"), "\(pull.stderr)")
        #expect(try libraryModels().isEmpty)
        #expect(try object(["show", "default", "--json"])?["source"] as? String == "bootstrap")
    }

    @Test("Daemon #6: SmolLM2 rewritten to call itself gemma-3-270m does not shadow the catalog id: --model, info, show and rm still mean Gemma")
    func generalNameShadow() throws {
        let impostor = scratch.url.appending(path: "smol-impostor.gguf")
        try GGUFRewriter.copy(ReferenceModel.chatURL(), to: impostor, settingString: "general.name", to: "gemma-3-270m")
        let imported = try llmkit(["import", impostor.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try libraryModels().map { $0["name"] as? String } == ["smol-impostor"])

        #expect(try object(["info", "gemma-3-270m", "--json"])?["architecture"] as? String == "gemma3")
        #expect(try object(["info", id, "--json"])?["architecture"] as? String == "llama")
        let shown = try #require(try object(["show", "gemma-3-270m", "--json"]))
        #expect(shown["sha256"] as? String == LibraryCommandTests.gemmaSHA256 && shown["source"] as? String == "bootstrap")
        let arguments = ["--raw", "-n", "4", "--temperature", "0", "The sky is"]
        let byName = try llmkit(["run", "-m", "gemma-3-270m"] + arguments)
        let byPath = try llmkit(["run", "-m", ReferenceModel.url().path] + arguments)
        #expect(byName.status == 0 && !byName.stdout.isEmpty && byName.stdout == byPath.stdout, "\(byName.stderr)")

        let removal = try llmkit(["rm", "gemma-3-270m"])
        #expect(removal.status == 1 && removal.stderr.contains("gemma-3-270m belongs to another program's model cache"), "\(removal.stderr)")
        #expect(try libraryModels().map { $0["id"] as? String } == [id])
    }

    @Test("Daemon #6: the real Gemma may take its own catalog id as a name; then the id means that library copy, and rm removes it alone")
    func catalogModelTakesItsID() throws {
        let imported = try llmkit(["import", ReferenceModel.url().path, "--name", "gemma-3-270m"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try libraryModels().map { $0["name"] as? String } == ["gemma-3-270m"])
        let shown = try #require(try object(["show", "gemma-3-270m", "--json"]))
        #expect(shown["id"] as? String == id && shown["source"] as? String == "library")

        let removal = try llmkit(["rm", "gemma-3-270m"])
        #expect(removal.status == 0 && removal.stderr.contains("removed \(id)"), "\(removal.stderr)")
        #expect(try libraryModels().isEmpty)
        #expect(FileManager.default.fileExists(atPath: try ReferenceModel.url().path))
        #expect(try object(["show", "gemma-3-270m", "--json"])?["source"] as? String == "bootstrap")
    }

    @Test("Daemon #6: a record of an older version named default or a catalog id by hand does not shadow them either")
    func legacyRecords() throws {
        let file = scratch.url.appending(path: "legacy.gguf")
        var builder = GGUFBuilder()
        builder.keyValues.append(("general.name", .string("Legacy")))
        builder.tensors = [.init(name: "weights", dimensions: [1 << 18], offset: 0)]
        builder.dataBytes = 1 << 20
        try builder.write(to: file)
        let imported = try llmkit(["import", file.path, "--name", "Legacy"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let metadata = scratch.url.appending(path: "home/models/\(id)/metadata.json")
        #expect(try String(contentsOf: metadata, encoding: .utf8).contains(#""name_given" : true"#))

        for name in ["default", "gemma-3-270m"] {
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: metadata)) as? [String: Any])
            json["name"] = name
            json["name_given"] = nil                                   // as written before name_given existed
            try JSONSerialization.data(withJSONObject: json).write(to: metadata)
            #expect(try object(["show", name, "--json"])?["source"] as? String == "bootstrap", "\(name)")
            let removal = try llmkit(["rm", name])
            #expect(removal.status == 1 && removal.stderr.contains("never changed or deleted"), "\(removal.stderr)")
            #expect(try object(["show", id, "--json"])?["name"] as? String == name)
        }
    }
}
