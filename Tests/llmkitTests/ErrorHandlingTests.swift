import Foundation
import LocalLLMKit
import Testing

@Suite("llmkit exit codes and messages")
struct ErrorHandlingTests {
    @Test("usage errors exit 2 with a usage line", arguments: [
        [String](),
        ["frobnicate"],
        ["run", "--bogus", "x"],
        ["run", "--max-tokens", "abc", "x"],
        ["run", "--temperature", "-1", "x"],
        ["run", "--raw", "--system", "s", "x"],
        ["run", "a", "b"],
        ["bench", "-p", "1,x"],
        ["bench", "-p", "0", "-n", "0"],
        ["info", "--json=1"],
    ])
    func usageErrors(arguments: [String]) throws {
        let output = try CommandRunner.llmkit(arguments)
        #expect(output.exitedNormally)
        #expect(output.status == 2)
        #expect(output.stderr.contains("usage: llmkit"))
        #expect(output.stdout.isEmpty)
    }

    @Test("help and version exit 0")
    func helpAndVersion() throws {
        for arguments in [["--help"], ["run", "--help"], ["info", "-h"], ["bench", "--help"], ["--version"]] {
            let output = try CommandRunner.llmkit(arguments)
            #expect(output.status == 0, "\(arguments)")
            #expect(!output.stdout.isEmpty)
        }
    }

    enum BadFile: String, CaseIterable {
        case missing, directory, empty, random, truncated
    }

    static func make(_ kind: BadFile, in folder: URL) throws -> URL {
        let url = folder.appending(path: "\(kind.rawValue).gguf")
        switch kind {
        case .missing: break
        case .directory: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        case .empty: try Data().write(to: url)
        case .random: try Data((0..<10_000).map { _ in UInt8.random(in: 0...255) }).write(to: url)
        case .truncated:
            let handle = try FileHandle(forReadingFrom: ReferenceModel.url())
            try handle.readData(ofLength: 50_000_000).write(to: url)
            try handle.close()
        }
        return url
    }

    @Test("a bad model file exits 1 with one line naming the file", arguments: BadFile.allCases)
    func badModel(kind: BadFile) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.make(kind, in: folder)
        for arguments in [["run", "--model", url.path, "--raw", "hi"], ["info", url.path], ["bench", "-m", url.path, "-p", "8", "-n", "0"]] {
            let output = try CommandRunner.llmkit(arguments)
            #expect(output.exitedNormally)
            #expect(output.status == 1, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains(url.path))
            #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
            #expect(output.stdout.isEmpty)
        }
    }

    @Test("a prompt that does not fit exits 1 and says so")
    func promptTooLong() throws {
        let output = try CommandRunner.llmkit(["run", "--raw", "--context", "32", "-n", "8", String(repeating: "word ", count: 64)])
        #expect(output.status == 1)
        #expect(output.stderr.contains("prompt too long"))
    }
}
