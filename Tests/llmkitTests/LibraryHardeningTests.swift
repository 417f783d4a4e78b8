import Foundation
import LocalLLMKit
import Testing

/// Issue #10 (hardening) for `llmkit rm`, `import` and model names, on a scratch library.
@Suite("llmkit library hardening", .serialized)
struct LibraryHardeningTests {
    let library: ScratchLibrary

    init() throws {
        library = try ScratchLibrary()
    }

    /// Imports a small model and returns its id and folder.
    func importTiny(_ title: String) throws -> (id: String, folder: URL) {
        let file = try library.tinyModel("\(title).gguf", title: title)
        let output = try library.llmkit(["import", file.path])
        guard output.status == 0 else { throw CommandRunner.Failure(description: output.stderr) }
        let id = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (id, library.root.appending(path: id))
    }

    /// A folder outside the library with a file in it, and a check that both are intact.
    func victim(_ name: String) throws -> (folder: URL, isIntact: () -> Bool) {
        let folder = library.url(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appending(path: "precious.txt")
        try Data("keep me".utf8).write(to: file)
        return (folder, { (try? String(contentsOf: file, encoding: .utf8)) == "keep me" })
    }

    /// Copies the metadata of `folder` into `destination` with some fields replaced.
    func forge(_ folder: URL, into destination: URL, _ changes: [String: Any]) throws {
        let data = try Data(contentsOf: folder.appending(path: "metadata.json"))
        var json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json.merge(changes) { $1 }
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: json).write(to: destination.appending(path: "metadata.json"))
    }

    @Test("Hardening #3: rm never deletes outside the library, whatever id a forged metadata.json holds")
    func forgedIdentifiers() throws {
        let (outside, isIntact) = try victim("victim")
        let model = try importTiny("Real")
        let relative = "../../victim", absolute = outside.path
        // Folders whose metadata names a path outside (and a file that is there), and later the
        // real model's own metadata forged the same way.
        let forged = library.root.appending(path: "evil-12345678")
        try forge(model.folder, into: forged, ["id": relative, "file_name": "precious.txt"])
        try FileManager.default.copyItem(at: model.folder.appending(path: "Real.gguf"), to: forged.appending(path: "precious.txt"))
        try forge(model.folder, into: library.root.appending(path: "abs-12345678"), ["id": absolute, "file_name": "precious.txt"])
        try forge(model.folder, into: library.root.appending(path: "dots-12345678"), ["id": "..", "file_name": "../../victim/precious.txt"])

        #expect(try library.listing().map { $0["id"] as? String } == [model.id])
        for name in [relative, absolute, "..", "../victim", "evil-12345678", "abs-12345678", "dots-12345678"] {
            let removal = try library.llmkit(["rm", name])
            #expect(removal.status == 1 && removal.stderr.contains("no model \(name) in the library"), "\(name): \(removal.stderr)")
        }
        // A forged display name is only a name: rm by it deletes that model's own folder.
        let named = try importTiny("Named")
        try forge(named.folder, into: named.folder, ["name": relative])
        let byName = try library.llmkit(["rm", relative])
        #expect(byName.status == 0 && byName.stderr.contains("removed \(named.id)"), "\(byName.stderr)")
        #expect(isIntact() && !FileManager.default.fileExists(atPath: named.folder.path))

        try forge(model.folder, into: model.folder, ["id": "../../victim", "file_name": "precious.txt"])   // the real model's too
        let removal = try library.llmkit(["rm", "Real"])
        #expect(removal.status == 1, "\(removal.stderr)")
        #expect(isIntact() && FileManager.default.fileExists(atPath: library.root.path))
        #expect(FileManager.default.fileExists(atPath: forged.path) && FileManager.default.fileExists(atPath: model.folder.path))
    }

    @Test("Hardening #3: a model folder or file that is a symbolic link out of the library is neither listed nor followed by rm")
    func symbolicLinks() throws {
        let (outside, isIntact) = try victim("elsewhere")
        let model = try importTiny("Linked")
        // A whole model folder that lives outside, linked in under a valid id.
        let linkedID = "outside-" + model.id.suffix(8)
        try forge(model.folder, into: outside, ["id": linkedID])
        try FileManager.default.copyItem(at: model.folder.appending(path: "Linked.gguf"), to: outside.appending(path: "Linked.gguf"))
        try FileManager.default.createSymbolicLink(at: library.root.appending(path: linkedID), withDestinationURL: outside)
        // A real folder whose model file is a link to a file outside.
        let fileLinkID = "filelink-" + model.id.suffix(8)
        let fileLink = library.root.appending(path: fileLinkID)
        try forge(model.folder, into: fileLink, ["id": fileLinkID])
        try FileManager.default.createSymbolicLink(at: fileLink.appending(path: "Linked.gguf"),
                                                   withDestinationURL: outside.appending(path: "Linked.gguf"))

        #expect(try library.listing().map { $0["id"] as? String } == [model.id])
        for id in [linkedID, fileLinkID] {
            let removal = try library.llmkit(["rm", id])
            #expect(removal.status == 1 && removal.stderr.contains("no model \(id)"), "\(removal.stderr)")
        }
        #expect(isIntact() && FileManager.default.fileExists(atPath: outside.appending(path: "Linked.gguf").path))

        // A link inside a real model's folder is removed with the folder, never followed.
        try FileManager.default.createSymbolicLink(at: model.folder.appending(path: "extra"), withDestinationURL: outside)
        let removal = try library.llmkit(["rm", model.id])
        #expect(removal.status == 0, "\(removal.stderr)")
        #expect(!FileManager.default.fileExists(atPath: model.folder.path))
        #expect(isIntact() && FileManager.default.fileExists(atPath: outside.appending(path: "metadata.json").path))
    }

    @Test("Hardening #7: import of a symbolic link (like the bootstrap's default.gguf) stores the file, and --move refuses links")
    func importSymbolicLink() throws {
        let target = try ReferenceModel.url()
        let link = library.url("default.gguf")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        let moved = try library.llmkit(["import", link.path, "--move"])
        #expect(moved.status == 1 && moved.stderr.contains(link.path) && moved.stderr.contains("symbolic link"), "\(moved.stderr)")
        #expect(try library.listing().isEmpty)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target.path)

        let imported = try library.llmkit(["import", link.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let entry = try #require(try library.listing().first)
        let stored = URL(filePath: try #require(entry["path"] as? String))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: stored.path)) == nil)   // a file, not a link
        #expect(stored.path.hasPrefix(library.root.path + "/"))
        #expect(try ScratchLibrary.sha256(of: stored) == LibraryCommandTests.gemmaSHA256)
        #expect(FileManager.default.fileExists(atPath: target.path) && FileManager.default.fileExists(atPath: link.path))

        // The stored file outlives the link and its target's folder: deleting the link changes nothing.
        try FileManager.default.removeItem(at: link)
        let run = try library.llmkit(["run", "--model", entry["id"] as? String ?? "", "--raw", "--max-tokens", "2", "Hi"])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test("Hardening #7: a relative Hugging Face style link is copied; a dangling link is a clear error")
    func relativeAndDanglingLinks() throws {
        let blob = try library.tinyModel("0123abcd", title: "Blob", in: library.url("hub/blobs"))
        let snapshot = library.url("hub/snapshots/main")
        try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: snapshot.appending(path: "model.gguf").path,
                                                   withDestinationPath: "../../blobs/0123abcd")
        let imported = try library.llmkit(["import", snapshot.appending(path: "model.gguf").path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let entry = try #require(try library.listing().first)
        #expect(try ScratchLibrary.sha256(of: URL(filePath: entry["path"] as? String ?? "")) == ScratchLibrary.sha256(of: blob))

        try FileManager.default.createSymbolicLink(atPath: library.url("dangling.gguf").path, withDestinationPath: "nowhere/x.gguf")
        let dangling = try library.llmkit(["import", library.url("dangling.gguf").path])
        #expect(dangling.status == 1 && dangling.stderr.contains("dangling.gguf") && dangling.stderr.contains("missing or loops"),
                "\(dangling.stderr)")
    }

    @Test("Hardening #8: names starting with a dot never make hidden folders; bad names are refused clearly")
    func names() throws {
        let file = try library.tinyModel(".hidden.gguf", title: ".Dotted")
        let imported = try library.llmkit(["import", file.path, "--name", ".hidden"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.hasPrefix("hidden-"))
        let entry = try #require(try library.listing().first)
        #expect(entry["name"] as? String == ".hidden" && (entry["path"] as? String)?.hasSuffix("/\(id)/hidden.gguf") == true)
        #expect(library.contents(of: library.root).filter { $0.hasPrefix(".") && !$0.hasPrefix(".lock") && $0 != ".staging" }.isEmpty)
        let shown = try library.llmkit(["show", ".hidden"])
        #expect(shown.status == 0 && shown.stdout.contains(id))

        let dots = try library.tinyModel("dots.gguf", title: "...")       // general.name "..." from the file itself
        let fromFile = try library.llmkit(["import", dots.path])
        #expect(fromFile.status == 0 && fromFile.stdout.hasPrefix("model-"), "\(fromFile.stdout) \(fromFile.stderr)")

        for (name, complaint) in [("bad\nname", "control characters"), ("   ", "cannot be empty"),
                                  ("esc\u{1B}[31m", "control characters"), (String(repeating: "x", count: 201), "at most 200")] {
            let refused = try library.llmkit(["import", file.path, "--name", name])
            #expect(refused.status == 1 && refused.stderr.contains(complaint), "\(refused.stderr)")
        }
        let pull = try library.llmkit(["pull", "http://127.0.0.1:1/model.gguf", "--name", "two\nlines"])
        #expect(pull.status == 1 && pull.stderr.contains("control characters") && !pull.stderr.contains("connect"), "\(pull.stderr)")
        #expect(try library.listing().count == 2)
        let removal = try library.llmkit(["rm", id])
        #expect(removal.status == 0, "\(removal.stderr)")
    }

    @Test("Hardening #8: an import that cannot write (a full disk) reports the cause and leaves nothing half-written")
    func importWriteFailure() throws {
        let file = try library.tinyModel("big.gguf", title: "Big", bytes: 4 << 20)
        let before = try ScratchLibrary.sha256(of: file)
        let bash = URL(filePath: "/bin/bash")
        let limited = try CommandRunner.run(bash, ["-c", "trap '' XFSZ; ulimit -f 2048; exec \"$0\" import \"$1\"",
                                                   try CommandRunner.llmkit().path, file.path], environment: library.environment)
        #expect(limited.status == 1 && limited.stderr.contains("cannot copy \(file.path) here: File too large"), "\(limited.stderr)")
        #expect(try library.listing().isEmpty)
        #expect(library.contents(of: library.root.appending(path: ".staging")).isEmpty)
        #expect(try ScratchLibrary.sha256(of: file) == before)
    }
}
