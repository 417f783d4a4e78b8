import Foundation
import LocalLLMKit
import Testing

/// The daemon review's points that the command line shows (issue 32): exposure without a key,
/// the REPL's /save and /load, and the wording of errors.
@Suite("llmkit as a daemon", .serialized)
struct DaemonCommandTests {
    /// Starts `llmkit serve` on a free port and waits for its "listening on" line.
    private func start(_ arguments: [String]) throws -> (Process, PipeReader, URL) {
        try CommandRunner.startServing(arguments)
    }

    private func stop(_ process: Process, _ reader: PipeReader) -> CommandRunner.Output {
        kill(process.processIdentifier, SIGTERM)
        return CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
    }

    @Test("Daemon #8: serve on an address other machines reach needs a key or --insecure-no-auth; an empty key is refused")
    func exposureNeedsAKey() throws {
        let open = try CommandRunner.llmkit(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(open.status == 2, "\(open.stderr)")
        #expect(open.stderr.contains("--host 0.0.0.0 can be reached from other machines") && open.stderr.contains("--insecure-no-auth"),
                "\(open.stderr)")
        let emptyVariable = try CommandRunner.llmkit(["serve", "--port", "0"], environment: ["LLMKIT_API_KEY": ""])
        #expect(emptyVariable.status == 2 && emptyVariable.stderr.contains("LLMKIT_API_KEY is set but empty"), "\(emptyVariable.stderr)")
        let emptyFlag = try CommandRunner.llmkit(["serve", "--port", "0", "--api-key", " "])
        #expect(emptyFlag.status == 2 && emptyFlag.stderr.contains("--api-key is empty"), "\(emptyFlag.stderr)")
        // Said explicitly, it serves (here on loopback's other name, 0.0.0.0, with no key).
        let (process, reader, base) = try start(["--host", "0.0.0.0", "--insecure-no-auth"])
        let health = try CommandRunner.run(URL(filePath: "/usr/bin/curl"), ["-sS", "http://127.0.0.1:\(base.port ?? 0)/health"])
        #expect(health.stdout.contains("ok"), "\(health.stderr)")
        #expect(stop(process, reader).status == 0)
    }

    @Test("Daemon #3: the REPL's /save refuses /dev/null and a link, leaving both; /load names /dev/zero for what it is")
    func replSaveAndLoad() throws {
        let folder = try ScratchFolder()
        let target = folder.url.appending(path: "notes.txt")
        try "mine".write(to: target, atomically: true, encoding: .utf8)
        let link = folder.url.appending(path: "link.llmconv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let input = "Hello.\n/save /dev/null\n/save \(link.path)\n/load /dev/zero\n/save \(folder.path("saved.llmconv"))\n"
        let output = try CommandRunner.llmkit(["chat", "--max-tokens", "4", "--temperature", "0"], stdin: input)
        #expect(output.stderr.contains("will not save over /dev/null: it is a character device, not a regular file"), "\(output.stderr)")
        #expect(output.stderr.contains("will not save over \(link.path): it is a symbolic link, not a regular file"))
        #expect(output.stderr.contains("invalid conversation file /dev/zero: it is a character device, not a regular file"))
        #expect(output.stderr.contains("saved to \(folder.path("saved.llmconv"))"))
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        #expect(lstat(link.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(try String(contentsOf: target, encoding: .utf8) == "mine")
    }

    @Test("Daemon #10, #11: errors name what was wrong in plain words: numbers, files, addresses, a server that is down")
    func errorWording() throws {
        let folder = try ScratchFolder()
        let cases: [([String], String)] = [
            (["run", "--temperature", "1e400", "hi"], "--temperature expects a finite number, got '1e400'"),
            (["run", "-f", "/dev/zero"], "cannot read /dev/zero: it is a character device, not a regular file"),
            (["run", "-f", folder.url.path], "it is a folder, not a regular file"),
            (["run", "--schema", folder.path("missing.json"), "hi"], "no such file or directory"),
            (["rpc-server", "--host", "::1", "--port", "50998"], "'::1' is an IPv6 address, and ggml-rpc's server binds IPv4 only"),
            (["ps", "--url", "http://127.0.0.1:9/v1"], "no server answers at http://127.0.0.1:9/v1/ps: the connection was refused"),
        ]
        for (arguments, words) in cases {
            let output = try CommandRunner.llmkit(arguments)
            #expect(output.status != 0, "\(arguments)")
            #expect(output.stderr.contains(words), "\(arguments): \(output.stderr)")
            for raw in ["NSCocoaErrorDomain", "NSURLErrorDomain", "You don’t have permission", "not loopback"] {
                #expect(!output.stderr.contains(raw), "\(arguments): \(output.stderr)")
            }
        }
        // A messages file with a number beyond a Double is valid JSON: it is named as what it is.
        let messages = folder.url.appending(path: "messages.json")
        try #"[{"role": "user", "content": "hi", "weight": 1e400}]"#.write(to: messages, atomically: true, encoding: .utf8)
        let prompt = try CommandRunner.llmkit(["prompt", "--messages", messages.path])
        #expect(prompt.status != 0)
        #expect(prompt.stderr.contains("beyond the range of a 64-bit float at $[0].weight"), "\(prompt.stderr)")
        #expect(!prompt.stderr.contains("not valid JSON"))
    }
}
