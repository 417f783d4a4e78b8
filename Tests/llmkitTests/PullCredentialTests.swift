import Foundation
import LocalLLMKit
import Testing

/// Issue 32 point 9 through `llmkit pull`: a user name and password in a URL authenticate to
/// their own host only, and are never stored or printed; against the download server on
/// 127.0.0.1, which requires them on its `/auth/` routes, and a second one on 127.0.0.2.
@Suite("llmkit pull with a user name and password in the URL", .serialized)
struct PullCredentialTests {
    static let authorization = "Basic " + Data("u:secret".utf8).base64EncodedString()

    let library: ScratchLibrary
    let served: URL
    let server: DownloadServer

    init() throws {
        library = try ScratchLibrary()
        (served, server) = try library.downloadServer()
        try server.control("/control/auth/u/secret")
    }

    /// `path` on `server`, with `u:secret@` in the URL.
    func authenticated(_ path: String, on server: DownloadServer? = nil) -> String {
        let server = server ?? self.server
        return "http://u:secret@\(server.host):\(server.port)\(path)"
    }

    /// The library's files (metadata, validators, partial downloads…) that hold the password.
    func filesHoldingPassword() -> [String] {
        let walker = FileManager.default.enumerator(at: library.root, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { url in
            (try? Data(contentsOf: url))?.range(of: Data("secret".utf8)) != nil
        }.map(\.path)
    }

    /// Runs `llmkit`, and checks that the password is in neither of its outputs.
    func llmkit(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandRunner.Output {
        let output = try library.llmkit(arguments)
        #expect(!output.stdout.contains("secret") && !output.stderr.contains("secret"), "\(output.stdout)\(output.stderr)",
                sourceLocation: sourceLocation)
        return output
    }

    @Test("Daemon #9: pull http://u:secret@… authenticates with HTTP Basic; the password is in no output, show, list or file of the library")
    func pullWithCredentials() throws {
        try library.tinyModel("model.gguf", title: "Guarded", in: served)
        let bare = server.url("/auth/files/model.gguf").absoluteString
        let anonymous = try llmkit(["pull", bare])
        #expect(anonymous.status == 1 && anonymous.stderr.contains("HTTP 401"), "\(anonymous.stderr)")
        _ = try server.log()

        let pull = try llmkit(["pull", authenticated("/auth/files/model.gguf")])
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(pull.stderr.contains("pulling \(bare) into"), "\(pull.stderr)")
        let id = pull.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try server.log().map(\.authorization) == [Self.authorization])

        let shown = try llmkit(["show", id, "--json"])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(record["source_urls"] as? [String] == [bare])
        let text = try llmkit(["show", id])
        #expect(text.status == 0 && text.stdout.contains("downloaded from") && text.stdout.contains(bare), "\(text.stdout)")
        _ = try llmkit(["list", "--json"])
        _ = try llmkit(["pull", authenticated("/auth/files/model.gguf"), "--json"])
        #expect(try server.log().isEmpty)                                     // the same URL: already in the library
        #expect(filesHoldingPassword().isEmpty, "\(filesHoldingPassword())")
    }

    @Test("Daemon #9: an interrupted pull keeps its bytes and no password (not in .validator, not in its messages); the resume authenticates again")
    func interruptedPull() throws {
        try library.tinyModel("model.gguf", title: "Guarded", bytes: 4 << 20, in: served)
        try server.control("/control/drop/1000000")
        let bare = server.url("/auth/files/model.gguf").absoluteString
        let interrupted = try llmkit(["pull", authenticated("/auth/files/model.gguf")])
        #expect(interrupted.status == 1 && interrupted.stderr.contains("gave up after 3 attempts"), "\(interrupted.stderr)")
        #expect(interrupted.stderr.contains("download of \(bare) failed") && interrupted.stderr.contains("of \(bare) to resume"),
                "\(interrupted.stderr)")
        #expect(library.contents(of: library.downloads).contains { $0.hasSuffix(".validator") })
        #expect(filesHoldingPassword().isEmpty, "\(filesHoldingPassword())")
        #expect(try server.log().map(\.authorization) == Array(repeating: Self.authorization, count: 3))

        try server.control("/control/drop/0")
        let resumed = try llmkit(["pull", authenticated("/auth/files/model.gguf")])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let log = try server.log()
        #expect(log.map(\.status) == [206] && log.map(\.authorization) == [Self.authorization])
        #expect(filesHoldingPassword().isEmpty, "\(filesHoldingPassword())")
    }

    @Test("Daemon #9: a redirect to another host, absolute or scheme-relative, 302 or 307, reaches it without the credentials",
          arguments: [(302, false), (307, false), (302, true), (307, true)])
    func redirectToAnotherHost(status: Int, schemeRelative: Bool) throws {
        try library.tinyModel("model.gguf", title: "Elsewhere", in: served)
        let other = try DownloadServer(serving: served, host: "127.0.0.2")
        let location = (schemeRelative ? "//127.0.0.2:\(other.port)" : "http://127.0.0.2:\(other.port)") + "/files/model.gguf"
        let query = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? location
        let pull = try llmkit(["pull", authenticated("/auth/redirect/\(status)/model.gguf?to=\(query)")])
        #expect(pull.status == 0, "\(pull.stderr)")
        let first = try server.log()
        #expect(first.map(\.status) == [status] && first.map(\.authorization) == [Self.authorization])
        let second = try other.log()
        #expect(second.map(\.path) == ["/files/model.gguf"] && second.map(\.status) == [200])
        #expect(second.map(\.authorization) == [nil], "the credentials went to 127.0.0.2")
        #expect(filesHoldingPassword().isEmpty, "\(filesHoldingPassword())")
    }

    @Test("Daemon #9: a redirect within the same host keeps the credentials, so a protected target still downloads")
    func redirectWithinHost() throws {
        try library.tinyModel("model.gguf", title: "Moved", in: served)
        let pull = try llmkit(["pull", authenticated("/auth/redirect/302/model.gguf?to=%2Fauth%2Ffiles%2Fmodel.gguf")])
        #expect(pull.status == 0, "\(pull.stderr)")
        let log = try server.log()
        #expect(log.map(\.path) == ["/auth/redirect/302/model.gguf?to=%2Fauth%2Ffiles%2Fmodel.gguf", "/auth/files/model.gguf"])
        #expect(log.map(\.status) == [302, 200] && log.map(\.authorization) == [Self.authorization, Self.authorization])
    }

    @Test("Daemon #9: a record that an older version stored with a password in its source URL is shown without it")
    func legacyRecord() throws {
        let file = try library.tinyModel("model.gguf", title: "Legacy", in: served)
        let imported = try llmkit(["import", file.path])
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let metadata = library.root.appending(path: id).appending(path: "metadata.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: metadata)) as? [String: Any])
        json["source_urls"] = ["https://u:secret@models.example/model.gguf"]
        try JSONSerialization.data(withJSONObject: json).write(to: metadata)

        let shown = try llmkit(["show", id, "--json"])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(record["source_urls"] as? [String] == ["https://models.example/model.gguf"])
        let text = try llmkit(["show", id])
        #expect(text.stdout.contains("https://models.example/model.gguf"))
        _ = try llmkit(["list", "--json"])
    }
}
