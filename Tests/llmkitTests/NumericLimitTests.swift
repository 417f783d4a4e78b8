import Foundation
import Testing

/// User numbers at the edges of their types never trap: each is used, saturated or rejected
/// with a message that names the flag.
@Suite("llmkit numeric limits")
struct NumericLimitTests {
    static let huge = String(Int.max)

    @Test("Hardening #13: extreme numbers give a usage error or a runtime error, never a signal", arguments: [
        (["run", "--max-tokens", huge, "hi"], "--max-tokens"),
        (["run", "--raw", "--max-tokens", huge, "hi"], "--max-tokens"),
        (["run", "--raw", "--max-tokens", "99999999999999999999999", "hi"], "--max-tokens"),
        (["run", "--raw", "--temperature", "1e308", "hi"], "--temperature"),
        (["run", "--raw", "--repeat-penalty", "1e300", "hi"], "--repeat-penalty"),
        (["run", "--raw", "--presence-penalty", "-1e300", "hi"], "--presence-penalty"),
        (["run", "--raw", "--seed", "4294967295", "hi"], "--seed"),
        (["run", "--context", huge, "hi"], "--context"),
        (["run", "--threads", huge, "hi"], "--threads"),
        (["run", "--gpu-layers", huge, "hi"], "--gpu-layers"),
        (["run", "--thinking-budget", huge, "hi"], "--thinking-budget"),
        (["run", "--max-tool-rounds", huge, "hi"], "--max-tool-rounds"),
        (["bench", "-p", huge, "-n", "1"], "-p"),
        (["bench", "-r", huge], "--repetitions"),
        (["chat", "--max-tokens", huge], "--max-tokens"),
    ])
    func extremeNumbers(arguments: [String], flag: String) throws {
        let output = try CommandRunner.llmkit(arguments, stdin: "hello\n")
        #expect(output.exitedNormally, "\(arguments) died: \(output.stderr.suffix(300))")
        #expect(output.status == 1 || output.status == 2, "\(arguments): \(output.status)")
        #expect(output.stderr.contains(flag), "\(arguments): \(output.stderr)")
        #expect(!output.stderr.contains("Fatal error") && !output.stderr.contains("crashed"))
    }

    @Test("Hardening #13: numbers at the top of their range still work", arguments: [
        ["run", "--raw", "--max-tokens", "2", "--top-k", huge, "--seed", "4294967294", "hi"],
        ["run", "--raw", "--max-tokens", "2", "--repeat-penalty", "1e30", "--presence-penalty", "3e38", "hi"],
    ])
    func topOfRange(arguments: [String]) throws {
        let output = try CommandRunner.llmkit(arguments)
        #expect(output.status == 0, "\(arguments): \(output.stderr)")
    }

    @Test("Hardening #16: --max-tokens ≥ --context is named as the cause, not the prompt")
    func maximumTokensAgainstContext() throws {
        for raw in [true, false] {
            let output = try CommandRunner.llmkit(["run"] + (raw ? ["--raw"] : []) + ["--context", "64", "--max-tokens", "64", "hi"])
            #expect(output.status == 1)
            #expect(output.stderr.contains("--max-tokens 64 leaves no room for the prompt"), "\(output.stderr)")
            #expect(output.stderr.contains("--context"))
            #expect(!output.stderr.contains("at most 0"))
        }
    }
}
