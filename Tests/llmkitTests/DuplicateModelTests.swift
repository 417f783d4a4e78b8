import Foundation
import LocalLLMKit
import Testing

/// Issue #12: `llmkit pull` and `llmkit import` of a model already in the library download
/// nothing, say so, print the id (or JSON) as usual and apply `--name`; their progress lines
/// on a terminal. Against the download server on 127.0.0.1.
@Suite("llmkit pull and import of a model already in the library", .serialized)
struct DuplicateModelTests {
    let library: ScratchLibrary
    let served: URL
    let server: DownloadServer

    init() throws {
        library = try ScratchLibrary()
        (served, server) = try library.downloadServer()
    }

    func object(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("pull of a URL or SHA-256 already in the library: no request, 'already in the library as ID', same id; --name renames it")
    func pullAgain() throws {
        let file = try library.tinyModel("model.gguf", title: "Tiny", in: served)
        let url = server.url("/files/model.gguf").absoluteString
        let first = try library.llmkit(["pull", url])
        #expect(first.status == 0, "\(first.stderr)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.stderr.contains("verified") && !first.stderr.contains("already in the library"))
        #expect(try server.log().count == 1)

        let again = try library.llmkit(["pull", url])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == first.stdout)
        #expect(again.stderr.contains("already in the library as \(id)") && !again.stderr.contains("verified"), "\(again.stderr)")
        #expect(try server.log().isEmpty)                              // no download at all

        // Another URL, with the SHA-256 of the model: still nothing fetched; --name renames it.
        let sha256 = try ScratchLibrary.sha256(of: file)
        let renamed = try library.llmkit(["pull", server.url("/slow/model.gguf").absoluteString, "--sha256", sha256,
                                          "--name", "Renamed Tiny", "--json"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stderr.contains("already in the library as \(id); renamed from Tiny to Renamed Tiny"), "\(renamed.stderr)")
        let record = try object(renamed.stdout)
        #expect(record["id"] as? String == id && record["name"] as? String == "Renamed Tiny" && record["sha256"] as? String == sha256)
        #expect(try server.log().isEmpty)
        let entries = try library.listing()
        #expect(entries.count == 1 && entries.first?["name"] as? String == "Renamed Tiny")
        #expect(library.contents(of: library.root.appending(path: id)) == ["metadata.json", "model.gguf"])

        // An unusable --name is refused, naming the problem; the model keeps its name.
        let refused = try library.llmkit(["pull", url, "--name", " "])
        #expect(refused.status == 1 && refused.stderr.contains("a model name cannot be empty"), "\(refused.stderr)")
        #expect(try library.listing().first?["name"] as? String == "Renamed Tiny")
        #expect(try server.log().isEmpty)
    }

    @Test("import of a file already in the library: same id, 'already in the library as ID'; --name renames it")
    func importAgain() throws {
        let file = try library.tinyModel("model.gguf", title: "Tiny")
        let first = try library.llmkit(["import", file.path])
        #expect(first.status == 0, "\(first.stderr)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.stderr.contains("imported Tiny"))
        #expect(!first.stderr.contains("copying"))                    // no progress line when stderr is not a terminal

        let again = try library.llmkit(["import", file.path])
        #expect(again.status == 0 && again.stdout == first.stdout, "\(again.stderr)")
        #expect(again.stderr.contains("already in the library as \(id)") && !again.stderr.contains("imported"), "\(again.stderr)")

        let named = try library.llmkit(["import", file.path, "--name", "Named Again", "--json"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stderr.contains("already in the library as \(id); renamed from Tiny to Named Again"), "\(named.stderr)")
        let record = try object(named.stdout)
        #expect(record["id"] as? String == id && record["name"] as? String == "Named Again")
        #expect(try library.listing().map { $0["name"] as? String } == ["Named Again"])
    }

    @Test("on a terminal, pull shows an ETA and import shows copy (or, moving, hash) progress")
    func terminalProgress() throws {
        try library.tinyModel("model.gguf", title: "Slow", bytes: 4 << 20, in: served)
        let pull = try TerminalSession.llmkit(["pull", server.url("/slow/model.gguf").absoluteString],
                                              environment: library.environment, steps: [])
        #expect(pull.status == 0, "\(pull.transcript)")
        #expect(pull.transcript.contains("ETA 0:0"), "\(pull.transcript)")
        #expect(pull.transcript.contains("of 4.0 MiB (100%)"), "\(pull.transcript)")

        let file = try library.tinyModel("other.gguf", title: "Other", bytes: 12 << 20)
        let copied = try TerminalSession.llmkit(["import", file.path], environment: library.environment, steps: [])
        #expect(copied.status == 0, "\(copied.transcript)")
        #expect(copied.transcript.contains("copying 12.0 MiB of 12.0 MiB (100%)"), "\(copied.transcript)")

        let moving = try library.tinyModel("moved.gguf", title: "Moved", bytes: 8 << 20)
        let moved = try TerminalSession.llmkit(["import", "--move", moving.path], environment: library.environment, steps: [])
        #expect(moved.status == 0, "\(moved.transcript)")
        #expect(moved.transcript.contains("hashing 8.0 MiB of 8.0 MiB (100%)"), "\(moved.transcript)")
    }
}
