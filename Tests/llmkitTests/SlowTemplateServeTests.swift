import Foundation
import LocalLLMKit
import Testing

/// The daemon review's point 12 (issue 32) through the command line: chats whose template renders
/// for seconds leave the server's other endpoints answering. It runs with nothing beside it
/// (`WHOLE_PROCESS_SUITES`): the template's wall-clock bound must not be reached for want of CPU.
@Suite("llmkit serve with templates that render slowly", .serialized)
struct SlowTemplateServeTests {
    @Test("Daemon #12: 8 chats whose template renders slowly leave /health, /metrics and embeddings answering, none waiting on a chat")
    func slowTemplatesLeaveTheServerResponsive() throws {
        let folder = try ScratchFolder()
        let slow = folder.url.appending(path: "slow-template.gguf")
        let template = try #require(try GGUFFile(modelAt: ReferenceModel.chatURL()).chatTemplate)
        // Seconds of rendering per request, in the template workers, for every chat.
        try GGUFRewriter.copy(try ReferenceModel.chatURL(), to: slow, settingString: "tokenizer.chat_template",
                              to: "{% for i in range(6000) %}{% endfor %}" + template)
        let (process, reader, base) = try CommandRunner.startServing([
            "--model", "slow=\(slow.path)", "--model", "minilm=\(try ReferenceModel.embeddingURL().path)", "--parallel", "8",
        ])
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "LocalLLMKitServerTests/Support/daemon_test.py")
        let outcome = try CommandRunner.run(URL(filePath: "/usr/bin/env"), [
            "python3", script.path, "--base-url", base.absoluteString, "--model", "slow", "--embed-model", "minilm",
            "--only", "responsive",
        ])
        kill(process.processIdentifier, SIGTERM)
        _ = CommandRunner.finish(process, reader, deadline: ContinuousClock.now + .seconds(60))
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
        #expect(outcome.stderr.contains("responsive: "), "\(outcome.stderr)")
    }
}
