import Foundation
import LocalLLMKit
import Testing

/// `llmkit info` and `llmkit run` on GGUF files that llama.cpp would abort on, and on
/// paths that are not regular files: exit status 1 and a message, never a signal or a hang.
@Suite("llmkit on corrupt model files")
struct CorruptModelTests {
    /// A crash would hand the process to Swift's backtracer, and an abort to ggml's (gdb),
    /// which can take minutes or hang: without them a regression fails at once.
    static let environment = ["SWIFT_BACKTRACE": "enable=no", "GGML_NO_BACKTRACE": "1"]

    /// Runs `llmkit` with a bound on its time, so a hang fails the test.
    static func llmkit(_ arguments: [String]) throws -> CommandRunner.Output {
        try CommandRunner.run(CommandRunner.llmkit(), arguments, environment: environment, timeout: .seconds(120))
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "llmkit-corrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("Hardening #9: info and run exit 1 with a message naming the culprit on every corrupt variant, never a signal",
          arguments: CorruptGGUF.all)
    func corruptVariant(variant: CorruptGGUF) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try variant.write(in: folder)
        for arguments in [["info", url.path], ["run", "-m", url.path, "--max-tokens", "2", "hi"]] {
            let command = arguments[0]
            let output = try Self.llmkit(arguments)
            #expect(output.exitedNormally, "\(command) was killed by signal \(output.status): \(output.stderr.suffix(300))")
            #expect(output.status == 1, "\(command) exited \(output.status)")
            #expect(output.stderr.hasPrefix("llmkit \(command): "), "\(output.stderr.suffix(300))")
            #expect(output.stderr.contains(variant.culprit), "\(command): \(output.stderr.suffix(300))")
        }
    }

    @Test("Hardening #9: at least 20 of the variants killed llmkit before the check")
    func generatorSize() {
        #expect(CorruptGGUF.all.filter(\.killedProcessBefore).count >= 20)
    }

    @Test("Hardening #9: info shows the metadata of an unloadable file, says it is not loadable and why")
    func infoReport() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let variant = try #require(CorruptGGUF.all.first { $0.name == "real-rms-epsilon-nan" })
        let url = try variant.write(in: folder)

        let text = try Self.llmkit(["info", url.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("architecture") && text.stdout.contains("gemma3"))
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("loadable") && $0.hasSuffix("no") })
        #expect(text.stderr.contains("gemma3.attention.layer_norm_rms_epsilon = nan"), "\(text.stderr)")

        let json = try Self.llmkit(["info", url.path, "--json"])
        #expect(json.status == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["loadable"] as? Bool == false)
        #expect((object["loadability_problem"] as? String)?.contains("layer_norm_rms_epsilon") == true)
    }

    @Test("Hardening #9: info calls the real default model loadable")
    func infoOnValidModel() throws {
        let url = try ReferenceModel.url()
        let text = try Self.llmkit(["info", url.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("loadable") && $0.hasSuffix("yes") })
        let json = try Self.llmkit(["info", url.path, "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["loadable"] as? Bool == true)
        #expect(object["loadability_problem"] == nil || object["loadability_problem"] is NSNull)
    }

    @Test("Hardening #9: info and run refuse a FIFO and a character device instead of blocking on them")
    func specialFiles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appending(path: "pipe.gguf")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        for (path, kind) in [(fifo.path, "a FIFO (named pipe)"), ("/dev/zero", "a character device")] {
            for arguments in [["info", path], ["run", "-m", path, "--max-tokens", "2", "hi"]] {
                // Were the FIFO opened, llmkit would block in open(2) until the time bound kills it.
                let output = try Self.llmkit(arguments)
                #expect(output.exitedNormally && output.status == 1, "\(arguments[0]) \(path): \(output.status)")
                #expect(output.stderr.contains("it is \(kind), not a regular file"), "\(output.stderr)")
            }
        }
    }
}
