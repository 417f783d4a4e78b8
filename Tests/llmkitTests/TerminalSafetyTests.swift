import Foundation
import LocalLLMKit
import Testing

/// Text from GGUF files and model names never reaches the terminal raw.
@Suite("llmkit terminal safety", .serialized)
struct TerminalSafetyTests {
    /// A name with an escape sequence that would retitle the terminal, a colour change, a
    /// carriage return, a new line that fakes a table row, and a bidirectional override.
    static let hostile = "evil\u{1B}]0;pwned\u{07}\u{1B}[31mred\rover\nFAKE  0 B  library  row\u{202E}txt.exe\u{9B}2J"

    /// Control characters that must never appear in human-readable output.
    static func controls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value))
        }
    }

    @Test("Hardening #4: GGUF metadata and model names with escape sequences are escaped in info, show, import and list; --json stays exact")
    func escapedEverywhere() throws {
        let scratch = try ScratchFolder()
        let environment = ["LLMKIT_HOME": scratch.path("home"), "HF_HUB_CACHE": scratch.path("hf"),
                           "OLLAMA_MODELS": scratch.path("ollama")]
        let file = scratch.url.appending(path: "hostile.gguf")
        try GGUFRewriter.copy(ReferenceModel.url(), to: file,
                                    settingStrings: ["general.name": Self.hostile, "llmkit.test.\u{1B}[2Jkey": Self.hostile])
        func llmkit(_ arguments: [String]) throws -> CommandRunner.Output {
            try CommandRunner.llmkit(arguments, environment: environment)
        }

        let info = try llmkit(["info", file.path, "--all"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(Self.controls(in: info.stdout).isEmpty)
        #expect(info.stdout.contains("evil\\e]0;pwned\\u{7}\\e[31mred\\rover\\nFAKE"))
        // Every field is one line: the fake row does not start a line of its own.
        #expect(!info.stdout.split(separator: "\n").contains { $0.hasPrefix("FAKE") })

        let json = try llmkit(["info", file.path, "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["name"] as? String == Self.hostile)

        let show = try llmkit(["show", file.path])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(Self.controls(in: show.stdout).isEmpty)

        let imported = try llmkit(["import", file.path])
        #expect(imported.exitedNormally)
        #expect(Self.controls(in: imported.stdout + imported.stderr).isEmpty, "\(imported.stderr)")
        if imported.status == 0 {
            let list = try llmkit(["list"])
            #expect(list.status == 0)
            #expect(Self.controls(in: list.stdout + list.stderr).isEmpty)
            #expect(!list.stdout.split(separator: "\n").contains { $0.hasPrefix("FAKE") })
            let listed = try llmkit(["list", "--json"])
            let entries = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            // The library stores names without control characters (it cleans names taken from a file).
            let name = try #require(entries.first?["name"] as? String)
            #expect(name.hasPrefix("evil") && !name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }

    @Test("Hardening #4: errors that quote a hostile file name are escaped")
    func escapedErrors() throws {
        let output = try CommandRunner.llmkit(["info", "/nonexistent/\u{1B}[31mred\nline.gguf"])
        #expect(output.status == 1)
        #expect(Self.controls(in: output.stderr).isEmpty)
        #expect(output.stderr.contains("\\e[31mred\\nline.gguf"))
    }
}
