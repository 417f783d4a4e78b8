import Foundation
import LocalLLMKit
import Testing

/// `llmkit pull/list/show/rm/import` and `--model NAME`, on a library in a scratch folder.
@Suite("llmkit model library commands", .serialized)
struct LibraryCommandTests {
    static let gemmaSHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"

    let scratch: ScratchFolder
    let environment: [String: String]

    init() throws {
        scratch = try ScratchFolder()
        environment = ["LLMKIT_HOME": scratch.path("home"), "HF_HUB_CACHE": scratch.path("hf"),
                       "OLLAMA_MODELS": scratch.path("ollama"), "LLMKIT_CACHE": scratch.path("cache")]
    }

    func llmkit(_ arguments: [String]) throws -> CommandRunner.Output {
        try CommandRunner.llmkit(arguments, environment: environment)
    }

    func listing() throws -> [[String: Any]] {
        let output = try llmkit(["list", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
    }

    @Test("pull (404 mirror, then the real file) → list → show → run --model NAME → rm")
    func pullListShowRunRemove() throws {
        let served = scratch.url.appending(path: "served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: served.appending(path: "gemma.gguf"),
                                                   withDestinationURL: ReferenceModel.url())
        let server = try DownloadServer(serving: served)

        let pull = try llmkit(["pull", server.url("/missing/gemma.gguf").absoluteString,
                               "--mirror", server.url("/files/gemma.gguf").absoluteString,
                               "--sha256", Self.gemmaSHA256, "--name", "Test Gemma"])
        #expect(pull.status == 0, "\(pull.stderr)")
        let id = pull.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id == "test-gemma-a5fd3b62")
        #expect(pull.stderr.contains("(100%)"))                       // plain progress lines when not on a terminal
        #expect(pull.stderr.contains("verified"))
        #expect(try server.log().map(\.path) == ["/missing/gemma.gguf", "/files/gemma.gguf"])

        let entries = try listing()
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["id"] as? String == id && entry["name"] as? String == "Test Gemma")
        #expect(entry["sha256"] as? String == Self.gemmaSHA256 && entry["bytes"] as? Int == 253_113_024)
        #expect(entry["read_only"] as? Bool == false)
        #expect((entry["path"] as? String).map { FileManager.default.fileExists(atPath: $0) } == true)

        let show = try llmkit(["show", id, "--json"])
        #expect(show.status == 0)
        let shown = try #require(JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        #expect(shown["architecture"] as? String == "gemma3" && shown["quantization"] as? String == "Q4_K_M")
        #expect(shown["source_urls"] as? [String] == [server.url("/missing/gemma.gguf").absoluteString,
                                                      server.url("/files/gemma.gguf").absoluteString])

        let run = try llmkit(["run", "--model", "Test Gemma", "--raw", "--max-tokens", "4", "--temperature", "0",
                              "Once upon a time"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.isEmpty)

        let remove = try llmkit(["rm", id])
        #expect(remove.status == 0)
        #expect(remove.stderr.contains("removed \(id)"))
        #expect(try listing().isEmpty)
        let again = try llmkit(["rm", id])
        #expect(again.status == 1 && again.stderr.contains("no model \(id) in the library"))
    }

    @Test("pull of a split Gemma's part 1 brings both parts; run --model ID writes what the whole file writes; a missing part is named")
    func pullSplitModel() throws {
        let served = scratch.url.appending(path: "served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let parts = try GGUFSplitter.split(ReferenceModel.url(), into: 2, prefix: "gemma", in: served)
        let server = try DownloadServer(serving: served)
        let url = server.url("/files/gemma-00001-of-00002.gguf").absoluteString

        let refused = try llmkit(["pull", url, "--sha256", Self.gemmaSHA256])
        #expect(refused.status == 2 && refused.stderr.contains("--sha256 cannot be used with a split model"), "\(refused.stderr)")

        let pull = try llmkit(["pull", url, "--json"])
        #expect(pull.status == 0, "\(pull.stderr)")
        let record = try #require(JSONSerialization.jsonObject(with: Data(pull.stdout.utf8)) as? [String: Any])
        let id = try #require(record["id"] as? String)
        let total = try parts.map { try #require(FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) }.reduce(0, +)
        #expect(record["bytes"] as? Int == total)
        #expect(try server.log().map(\.path) == ["/files/gemma-00001-of-00002.gguf", "/files/gemma-00002-of-00002.gguf"])

        let arguments = ["--raw", "-n", "4", "--temperature", "0", "Once upon a time"]
        let whole = try llmkit(["run", "--model", ReferenceModel.url().path] + arguments)
        let split = try llmkit(["run", "--model", id] + arguments)
        #expect(whole.status == 0 && split.status == 0, "\(split.stderr)")
        #expect(!whole.stdout.isEmpty && split.stdout == whole.stdout)

        let second = scratch.url.appending(path: "home/models/\(id)/gemma-00002-of-00002.gguf")
        try FileManager.default.removeItem(at: second)
        let missing = try llmkit(["run", "--model", id] + arguments)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("part 2 of 2 of the split model is missing: \(second.path)"), "\(missing.stderr)")
    }

    @Test("import --move adds a file once; show works on a path; Ollama models are listed read-only and runnable")
    func importAndDiscovered() throws {
        let copy = scratch.url.appending(path: "copy.gguf")
        try FileManager.default.copyItem(at: ReferenceModel.url(), to: copy)
        let imported = try llmkit(["import", copy.path, "--move", "--name", "Moved Gemma"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        let importedAgain = try llmkit(["import", ReferenceModel.url().path])
        #expect(importedAgain.stdout == imported.stdout)               // same SHA-256: one entry

        let blob = scratch.url.appending(path: "ollama/blobs/sha256-\(Self.gemmaSHA256)")
        let manifest = scratch.url.appending(path: "ollama/manifests/registry.ollama.ai/library/gemma3/270m")
        for folder in [blob, manifest] {
            try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(at: blob, withDestinationURL: ReferenceModel.url())
        try Data(#"{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:\#(Self.gemmaSHA256)"}]}"#.utf8)
            .write(to: manifest)

        let entries = try listing()
        #expect(entries.map { $0["name"] as? String } == ["Moved Gemma", "gemma3:270m"])
        #expect(entries.map { $0["read_only"] as? Bool } == [false, true])
        let table = try llmkit(["list"])
        #expect(table.stdout.contains("ollama (read-only)"))

        let refused = try llmkit(["rm", "ollama:gemma3:270m"])
        #expect(refused.status == 1 && refused.stderr.contains("ollama:gemma3:270m belongs to another program"))
        #expect(FileManager.default.fileExists(atPath: blob.path))
        let run = try llmkit(["run", "--model", "ollama:gemma3:270m", "--raw", "--max-tokens", "3", "Hello"])
        #expect(run.status == 0, "\(run.stderr)")

        let show = try llmkit(["show", ReferenceModel.url().path])
        #expect(show.status == 0 && show.stdout.contains("gemma3") && show.stdout.contains("source            file"))
    }

    @Test("bad references and unknown models fail with exit 1, naming what was wrong", arguments: [
        (["pull", "hf:org/repo/../escape.gguf"], "hf:org/repo/../escape.gguf"),
        (["pull", "ftp://example.com/a.gguf"], "ftp://example.com/a.gguf"),
        (["run", "--model", "no-such-model", "Hi"], "no model no-such-model in the library"),
        (["show", "no-such-model"], "no-such-model"),
        (["import", "/nonexistent/file.gguf"], "/nonexistent/file.gguf"),
    ])
    func failures(_ arguments: [String], _ named: String) throws {
        let output = try llmkit(arguments)
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stderr.contains(named), "\(output.stderr)")
        #expect(try listing().isEmpty)
    }

    @Test("a wrong SHA-256 fails naming the URL, and nothing is registered")
    func checksumMismatch() throws {
        let served = scratch.url.appending(path: "served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try Data(count: 4096).write(to: served.appending(path: "zeros.gguf"))
        let server = try DownloadServer(serving: served)
        let url = server.url("/files/zeros.gguf").absoluteString
        let output = try llmkit(["pull", url, "--sha256", String(repeating: "a", count: 64)])
        #expect(output.status == 1)
        #expect(output.stderr.contains(url) && output.stderr.contains("SHA-256"))
        #expect(try listing().isEmpty)
    }

    @Test("pull without a reference is a usage error")
    func usage() throws {
        let output = try llmkit(["pull"])
        #expect(output.status == 2 && output.stderr.contains("usage: llmkit pull"))
    }
}
