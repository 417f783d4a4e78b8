import Foundation
import Testing

/// `llmkit chat` as a REPL: libedit on a real pseudo-terminal (editing, history, Ctrl-C, Ctrl-D),
/// and the same input rules (`"""` blocks, commands, `--json`) with piped input.
@Suite("llmkit chat REPL", .serialized)
struct ChatREPLTests {
    static let flags = ["--max-tokens", "8", "--temperature", "0", "--system", "Be brief."]
    static let reportKeys: Set<String> = ["turn", "prompt", "text", "thinking", "stop_reason", "stop_sequence", "tool_calls"]
    static let up = "\u{1b}[A", ctrlC = "\u{03}", ctrlD = "\u{04}", block = "\"\"\""

    /// The `--json` objects on stdout, one per line.
    static func reports(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not a JSON object: \($0)")
        }
    }

    /// The `--stats` objects a terminal showed (the terminal ends lines with \r\n).
    static func statistics(_ transcript: String) throws -> [[String: Any]] {
        try transcript.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not a JSON object: \($0)")
        }
    }

    /// Steps that wait for the end of an answer (its `--stats` line) and the next prompt.
    static let answered: [TerminalSession.Step] = [.expect("\"stop_reason\""), .expect("> ")]

    // MARK: - On a terminal

    @Test("on a terminal: Up recalls a line, a \"\"\" block is one message, Ctrl-D leaves with 0, the history outlives the session")
    func terminalEditingAndHistory() throws {
        let folder = try ScratchFolder()
        let data = folder.url.appending(path: "data/llmkit")      // created by llmkit
        let environment = ["LLMKIT_HOME": data.path]
        let question = "What is the capital of France?"
        let steps: [TerminalSession.Step] = [.expect("> "), .type(question + "\r")] + Self.answered
            + [.type(Self.up + "\r")] + Self.answered
            + [.type(Self.block + "\r"), .expect("... "), .type("first line\r"), .expect("... "), .type("second line\r"),
               .expect("... "), .type(Self.block + "\r")] + Self.answered
            + [.type(Self.ctrlD)]
        let session = try TerminalSession.llmkit(["chat", "--json", "--stats"] + Self.flags, environment: environment, steps: steps)
        #expect(session.error == nil, "\(session.transcript)")
        #expect(session.status == 0, "\(session.transcript)")
        let reports = try Self.reports(session.stdout)
        #expect(reports.map { $0["turn"] as? Int } == [1, 2, 3])
        // The model received the recalled line itself, not the escape sequence of the arrow key.
        #expect(reports.map { $0["prompt"] as? String } == [question, question, "first line\nsecond line"])
        #expect(!(reports[1]["prompt"] as? String ?? "\u{1b}").contains("\u{1b}"))

        let history = try String(contentsOf: data.appending(path: "chat_history"), encoding: .utf8)
        #expect(history.contains("capital") && history.contains("second"), "\(history)")

        // A new session recalls the previous session's last entry: the whole block.
        let next = try TerminalSession.llmkit(["chat", "--json", "--stats"] + Self.flags, environment: environment,
                                              steps: [.expect("> "), .type(Self.up + "\r")] + Self.answered + [.type(Self.ctrlD)])
        #expect(next.error == nil, "\(next.transcript)")
        #expect(next.status == 0)
        #expect(try Self.reports(next.stdout).map { $0["prompt"] as? String } == ["first line\nsecond line"])
    }

    @Test("on a terminal: Ctrl-C stops the answer, the chat goes on without that turn, Ctrl-C at the prompt leaves with 0")
    func terminalInterrupt() throws {
        let folder = try ScratchFolder()
        let steps: [TerminalSession.Step] = [
            .expect("> "), .type("Tell me a very long story about a dragon and a knight.\r"),
            .stdoutBytes(1), .send(Self.ctrlC), .expect("[answer stopped]"), .expect("> "),
            .type("What is 2+2?\r"),
        ] + Self.answered + [.type(Self.ctrlC)]
        let session = try TerminalSession.llmkit(["chat", "--stats", "--max-tokens", "300", "--temperature", "0"],
                                                 environment: ["LLMKIT_HOME": folder.path("data")], steps: steps)
        #expect(session.error == nil, "\(session.transcript)")
        #expect(session.status == 0, "\(session.transcript)")
        // The stopped answer left no turn behind: the answered question is turn 1.
        let turns = try Self.statistics(session.transcript)
        #expect(turns.map { $0["turn"] as? Int } == [1])
        #expect(turns.first?["stop_reason"] as? String != "cancelled")
        #expect(session.stdout.split(separator: "\n", omittingEmptySubsequences: true).count >= 2, "\(session.stdout)")
    }

    @Test("on a terminal: a history file that cannot be written gives one warning, and the chat goes on")
    func unwritableHistory() throws {
        let folder = try ScratchFolder()
        try Data("not a folder".utf8).write(to: folder.url.appending(path: "file"))
        let steps: [TerminalSession.Step] = [.expect("> "), .type("Hello.\r")] + Self.answered
            + [.type("Name a color.\r")] + Self.answered + [.type(Self.ctrlD)]
        let session = try TerminalSession.llmkit(["chat", "--json", "--stats"] + Self.flags,
                                                 environment: ["LLMKIT_HOME": folder.path("file/data")], steps: steps)
        #expect(session.error == nil, "\(session.transcript)")
        #expect(session.status == 0, "\(session.transcript)")
        #expect(session.transcript.components(separatedBy: "cannot write the history file").count == 2, "\(session.transcript)")
        #expect(try Self.reports(session.stdout).count == 2)
    }

    // MARK: - Piped input

    @Test("piped: a \"\"\" block is one message, kept verbatim; input that ends inside a block sends it with a warning")
    func pipedBlocks() throws {
        let input = "Hello.\n\(Self.block)\nfirst line\n\n/not a command\n\(Self.block)\n\(Self.block)\nlast words\n"
        let output = try CommandRunner.llmkit(["chat", "--json"] + Self.flags, stdin: input)
        #expect(output.status == 0, "\(output.stderr)")
        let reports = try Self.reports(output.stdout)
        #expect(reports.map { $0["prompt"] as? String } == ["Hello.", "first line\n\n/not a command", "last words"])
        #expect(output.stderr.contains("the input ended inside a \(Self.block) block"))
        #expect(!output.stderr.contains("unknown command"))
    }

    @Test("piped: /help lists the commands; /save and /load without a path print their usage and fail nothing")
    func pipedHelpAndUsage() throws {
        let output = try CommandRunner.llmkit(["chat"] + Self.flags, stdin: "/help\n/save\n/load  \n")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        for text in ["/help", "/save PATH", "/load PATH", "/reset", "/quit", "/exit", Self.block,
                     "usage: /save PATH", "usage: /load PATH"] {
            #expect(output.stderr.contains(text), "missing \(text) in \(output.stderr)")
        }
        #expect(!output.stderr.contains("unknown command"))
        let help = try CommandRunner.llmkit(["chat", "--help"])
        #expect(help.stdout.contains("--json") && help.stdout.contains("/help") && help.stdout.contains("chat_history"))
    }

    @Test("piped --json: one compact object per turn, always with the same keys")
    func pipedJSON() throws {
        let output = try CommandRunner.llmkit(["chat", "--json"] + Self.flags, stdin: "Hello.\nName a color.\n/reset\nHello.\n")
        #expect(output.status == 0, "\(output.stderr)")
        let reports = try Self.reports(output.stdout)
        #expect(reports.count == 3)
        for report in reports {
            #expect(Set(report.keys) == Self.reportKeys)
            #expect(report["thinking"] is NSNull)
            #expect(report["stop_sequence"] is NSNull)
            #expect((report["tool_calls"] as? [Any])?.isEmpty == true)
            #expect(!(report["text"] as? String ?? "").isEmpty)
        }
        #expect(reports.map { $0["turn"] as? Int } == [1, 2, 1])
        #expect(reports.map { $0["prompt"] as? String } == ["Hello.", "Name a color.", "Hello."])
        #expect(reports[0]["text"] as? String == reports[2]["text"] as? String)
    }
}
