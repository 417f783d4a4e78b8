import Foundation

/// Runs `llmkit` on a pseudo-terminal and types into it, the way a person at a terminal would.
///
/// A small Python driver (`pty.fork`) gives the child the terminal as its controlling terminal on
/// stdin and stderr, so that libedit edits lines and Ctrl-C (`\u{03}`) raises SIGINT; stdout goes
/// to a file, so that answers (or `--json` lines) can be read apart from prompts and echo.
/// The driver follows a script of steps and reports everything the terminal showed.
enum TerminalSession {
    /// One step of the script.
    enum Step: Encodable {
        /// Type these characters at the prompt (`\r` is Enter, `\u{1b}[A` is Up, `\u{03}` Ctrl-C,
        /// `\u{04}` Ctrl-D), once libedit reads the terminal (canonical mode off). libedit shows its
        /// prompt a moment before it takes the terminal: keys sent in between would be handled by
        /// the terminal itself (a Ctrl-D there is lost).
        case type(String)
        /// Send these characters at once, e.g. Ctrl-C while an answer is being written.
        case send(String)
        /// Wait until the terminal shows this text after the previous match.
        case expect(String)
        /// Wait until stdout holds at least this many bytes.
        case stdoutBytes(Int)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .type(let text):
                try container.encode(text, forKey: .send)
                try container.encode(true, forKey: .editing)
            case .send(let text): try container.encode(text, forKey: .send)
            case .expect(let text): try container.encode(text, forKey: .expect)
            case .stdoutBytes(let count): try container.encode(count, forKey: .stdoutBytes)
            }
        }

        private enum CodingKeys: String, CodingKey {
            case send, editing, expect
            case stdoutBytes = "stdout_bytes"
        }
    }

    /// What one session did.
    struct Outcome: Decodable {
        /// Why the script stopped early (a step that timed out, or output that ended), or nil.
        let error: String?
        /// Everything the terminal showed: prompts, echo, stderr.
        let transcript: String
        /// The exit status, or nil when a signal ended the process.
        let status: Int32?
        /// The signal that ended the process, or nil.
        let signal: Int32?
        /// What the process wrote to stdout.
        var stdout = ""

        private enum CodingKeys: String, CodingKey { case error, transcript, status, signal }
    }

    /// Runs `llmkit arguments` on a terminal through `steps`, then waits for it to exit.
    /// Each step waits at most `stepTimeout` (a safety net for a stuck process, not a measure).
    static func llmkit(_ arguments: [String], environment: [String: String] = [:], steps: [Step],
                       stepTimeout: Duration = .seconds(180)) throws -> Outcome {
        let folder = try ScratchFolder()
        let stdoutFile = folder.path("stdout")
        var childEnvironment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        childEnvironment["TERM"] = childEnvironment["TERM"] ?? "xterm"
        let specification = Specification(argv: [try CommandRunner.llmkit().path] + arguments, env: childEnvironment,
                                          stdout: stdoutFile, steps: steps,
                                          timeout: Double(stepTimeout.components.seconds))
        let json = String(decoding: try JSONEncoder().encode(specification), as: UTF8.self)
        let run = try CommandRunner.run(URL(filePath: "/usr/bin/env"), ["python3", "-c", driver, json],
                                        timeout: stepTimeout * (steps.count + 1))
        guard run.status == 0 else {
            throw CommandRunner.Failure(description: "the terminal driver failed (\(run.status)): \(run.stderr)")
        }
        var outcome = try JSONDecoder().decode(Outcome.self, from: Data(run.stdout.utf8))
        outcome.stdout = (try? String(contentsOfFile: stdoutFile, encoding: .utf8)) ?? ""
        return outcome
    }

    private struct Specification: Encodable {
        let argv: [String]
        let env: [String: String]
        let stdout: String
        let steps: [Step]
        let timeout: Double
    }

    /// The driver: forks the child on a new pseudo-terminal, runs the steps, reads the
    /// terminal until the child closes it, and prints the outcome as JSON.
    private static let driver = #"""
    import json, os, pty, select, signal, sys, termios, time
    spec = json.loads(sys.argv[1])
    out = os.open(spec["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    pid, fd = pty.fork()
    if pid == 0:
        os.dup2(out, 1)
        os.execve(spec["argv"][0], spec["argv"], spec["env"])
    os.close(out)
    shown = b""
    cursor = 0
    error = None
    closed = False
    def editing():
        try:
            return not (termios.tcgetattr(fd)[3] & termios.ICANON)
        except termios.error:
            return False
    def pump(wait):
        global shown, closed
        ready, _, _ = select.select([fd], [], [], wait)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                closed = True
            shown += data
    for number, step in enumerate(spec["steps"], 1):
        deadline = time.monotonic() + spec["timeout"]
        if "send" in step and not step.get("editing"):
            os.write(fd, step["send"].encode())
            continue
        while error is None:
            if "send" in step:
                if editing():
                    os.write(fd, step["send"].encode())
                    break
            elif "expect" in step:
                found = shown.find(step["expect"].encode(), cursor)
                if found >= 0:
                    cursor = found + len(step["expect"].encode())
                    break
            elif os.path.getsize(spec["stdout"]) >= step["stdout_bytes"]:
                break
            if closed:
                error = "step %d (%s): the terminal closed" % (number, json.dumps(step))
            elif time.monotonic() > deadline:
                error = "step %d (%s): timed out" % (number, json.dumps(step))
            else:
                pump(0.05)
        if error:
            break
    deadline = time.monotonic() + spec["timeout"]
    while error is None and not closed and time.monotonic() < deadline:
        pump(0.05)
    if not closed:
        error = error or "the process did not exit"
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({
        "error": error,
        "transcript": shown.decode("utf-8", "replace"),
        "status": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
    }))
    """#
}
