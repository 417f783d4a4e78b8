import Foundation
import Testing

/// stderr carries llmkit's own lines only: llama.cpp's log (its `common` library's included)
/// is silent unless `--verbose` asks for it, and errors say what is wrong on one line.
@Suite("llmkit standard error")
struct QuietStandardErrorTests {
    static let messages = #"[{"role": "user", "content": "Hi"}]"#

    @Test("Hardening #16: a broken template's error names the cause on one line; llama.cpp's own log stays silent",
          arguments: [
              ("{% for m in messages %}{{ m.content }{% endfor %}", "Expected }}"),
              ("{% for m in messages %}{{ m.content | nosuchfilter }}{% endfor %}", "nosuchfilter"),
              (#"{% for m in messages %}{{ raise_exception("the template says no") }}{% endfor %}"#, "the template says no"),
              ("{% if %}x", "cannot be parsed"),
          ])
    func brokenTemplates(template: String, cause: String) throws {
        let scratch = try ScratchFolder()
        let templatePath = scratch.path("t.jinja"), messagesPath = scratch.path("m.json")
        try template.write(toFile: templatePath, atomically: true, encoding: .utf8)
        try Self.messages.write(toFile: messagesPath, atomically: true, encoding: .utf8)
        for arguments in [["prompt", "--chat-template", templatePath, "--messages", messagesPath],
                          ["run", "--chat-template", templatePath, "--max-tokens", "4", "Hi"]] {
            let output = try CommandRunner.llmkit(arguments)
            #expect(output.status == 1, "\(arguments)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains(cause), "\(arguments): \(output.stderr)")
            #expect(!output.stderr.contains("std::exception") && !output.stderr.contains("--no-jinja"))
        }
    }

    @Test("Hardening #16: a normal run prints nothing on stderr")
    func silentByDefault() throws {
        // Chat mode with the default chat model, raw mode with the reference base model.
        for (arguments, model) in [(["run", "--max-tokens", "4", "--temperature", "0", "Hi"], ""),
                                   (["run", "--raw", "--max-tokens", "4", "--temperature", "0", "Hi"], try ReferenceModel.url().path)] {
            let output = try CommandRunner.llmkit(arguments, environment: ["LLMKIT_MODEL": model])
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            #expect(output.stderr.isEmpty, "\(arguments): \(output.stderr)")
        }
        let verbose = try CommandRunner.llmkit(["run", "--raw", "--verbose", "--max-tokens", "2", "Hi"])
        #expect(verbose.stderr.contains("llama_model_loader"))
    }
}
