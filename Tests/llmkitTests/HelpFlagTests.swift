import Foundation
import LocalLLMKit
import Testing

/// `llmkit help`, `--version`, `completion` and `--chat-template list|NAME`, through the real binary.
@Suite("llmkit help, version, completion and template names")
struct HelpFlagTests {
    static let commands = ["run", "chat", "prompt", "info", "bench", "pull", "list", "show", "rm", "import", "completion"]

    @Test("llmkit help COMMAND prints the same as llmkit COMMAND --help", arguments: commands)
    func helpCommand(_ command: String) throws {
        let help = try CommandRunner.llmkit(["help", command])
        let flag = try CommandRunner.llmkit([command, "--help"])
        #expect(help.status == 0 && flag.status == 0)
        #expect(help.stdout == flag.stdout)
        #expect(help.stdout.hasPrefix("usage: llmkit \(command)"))
    }

    @Test("llmkit help alone prints the overview, which lists every command and `help`")
    func helpOverview() throws {
        let help = try CommandRunner.llmkit(["help"])
        let flag = try CommandRunner.llmkit(["--help"])
        #expect(help.status == 0 && help.stdout == flag.stdout)
        for command in Self.commands + ["help CMD"] {
            #expect(help.stdout.contains("\n  \(command) "), "\(command) missing from the overview")
        }
        let extra = try CommandRunner.llmkit(["help", "run", "chat"])
        #expect(extra.status == 2 && extra.stderr.contains("usage: llmkit help"))
    }

    @Test("the help texts name llama.cpp's spellings and bench's exceptions")
    func helpNamesAliases() throws {
        let run = try CommandRunner.llmkit(["run", "--help"]).stdout
        for alias in ["-p, --prompt", "-f, --prompt-file", "--n-predict", "--temp", "-r, --stop", "--reverse-prompt", "-sys, --system",
                      "--system-prompt", "-j, --json-schema", "--grammar-file", "--ctx-size", "--n-gpu-layers", "--chat-template list"] {
            #expect(run.contains(alias), "run --help lacks \(alias)")
        }
        let chat = try CommandRunner.llmkit(["chat", "--help"]).stdout
        #expect(chat.contains("--temp") && chat.contains("-sys, --system") && chat.contains("-j, --json-schema"))
        let bench = try CommandRunner.llmkit(["bench", "--help"]).stdout
        #expect(bench.contains("keep llama-bench's meanings"))
    }

    @Test("--version names llmkit's version and the llama.cpp build and commit")
    func version() throws {
        let output = try CommandRunner.llmkit(["--version"])
        #expect(output.status == 0)
        #expect(output.stdout.hasPrefix("llmkit \(LLMKitVersion.current) (llama.cpp \(LLMKitVersion.llamaCpp)"))
        #expect(output.stdout.contains("build \(LLMKitVersion.llamaCppBuildNumber), commit \(LLMKitVersion.llamaCppCommit))"))
        #expect(LLMKitVersion.llamaCppCommit != "unknown" && !LLMKitVersion.llamaCppCommit.isEmpty)
    }

    @Test("completion bash passes bash -n, names every command and alias and completes commands and flags")
    func bashCompletion() throws {
        let output = try CommandRunner.llmkit(["completion", "bash"])
        #expect(output.status == 0 && output.stderr.isEmpty)
        let folder = try ScratchFolder()
        try output.stdout.write(toFile: folder.path("llmkit.bash"), atomically: true, encoding: .utf8)
        let check = try CommandRunner.run(URL(filePath: "/bin/bash"), ["-n", folder.path("llmkit.bash")])
        #expect(check.status == 0, "\(check.stderr)")
        for command in Self.commands {
            #expect(output.stdout.contains("\(command))") || output.stdout.contains("\(command)|"), "no case for \(command)")
        }
        for flag in ["--temperature", "--n-prompt", "--sha256", "--messages", "--move"] { #expect(output.stdout.contains(flag)) }
        // Run the completion function as bash would.
        func complete(_ words: [String]) throws -> [String] {
            let script = "source \(folder.path("llmkit.bash")); COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); "
                + "COMP_CWORD=\(words.count - 1); _llmkit; printf '%s\\n' \"${COMPREPLY[@]}\""
            let result = try CommandRunner.run(URL(filePath: "/bin/bash"), ["-c", script])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["llmkit", "ru"]) == ["run"])
        #expect(try complete(["llmkit", "run", "--temp"]) == ["--temperature"])
        #expect(try complete(["llmkit", "bench", "--n-"]).sorted() == ["--n-gen", "--n-prompt"])
        #expect(try complete(["llmkit", "completion", "f"]) == ["fish"])
        // Ollama's habits: `ls` for `list`, and `--format` (json) wherever `--json` is.
        #expect(try complete(["llmkit", "l"]).sorted() == ["list", "ls"])
        #expect(try complete(["llmkit", "ls", "--fo"]) == ["--format"])
        #expect(try complete(["llmkit", "run", "--for"]) == ["--format"])
        #expect(try complete(["llmkit", "run", "--chat-template", "Qwen-Qwen3-0"]) == ["Qwen-Qwen3-0.6B"])
    }

    @Test("completion zsh and fish name every command", arguments: ["zsh", "fish"])
    func otherShells(_ shell: String) throws {
        let output = try CommandRunner.llmkit(["completion", shell])
        #expect(output.status == 0 && output.stderr.isEmpty)
        for command in Self.commands {
            let mention = shell == "zsh" ? "'\(command):" : "-a \(command) -d"
            #expect(output.stdout.contains(mention), "\(shell): \(command) missing")
        }
        #expect(output.stdout.contains(shell == "zsh" ? "--temperature" : "-l temperature"))
        // The shell's own syntax check, where the shell is installed (optional: apt-get install zsh fish).
        let binary = URL(filePath: "/usr/bin/\(shell)")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { return }
        let folder = try ScratchFolder()
        try output.stdout.write(toFile: folder.path("script"), atomically: true, encoding: .utf8)
        let check = try CommandRunner.run(binary, ["-n", folder.path("script")])
        #expect(check.status == 0, "\(shell) -n: \(check.stderr)")
        if shell == "fish" {
            let completed = try CommandRunner.run(binary, ["-c", "source \(folder.path("script")); complete -C 'llmkit run --temp'"])
            #expect(completed.stdout.hasPrefix("--temperature"), "\(completed.stdout)")
        }
    }

    @Test("completion without a known shell is a usage error")
    func completionUsage() throws {
        for arguments in [["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"]] {
            let output = try CommandRunner.llmkit(arguments)
            #expect(output.status == 2 && output.stderr.contains("usage: llmkit completion"), "\(arguments)")
        }
    }

    @Test("--chat-template list prints the installed and the built-in template names")
    func templateList() throws {
        for command in [["run"], ["chat"], ["prompt"]] {
            let output = try CommandRunner.llmkit(command + ["--chat-template", "list"])
            #expect(output.status == 0, "\(command): \(output.stderr)")
            #expect(output.stdout.contains("\n  Qwen-Qwen3-0.6B\n") && output.stdout.contains("\n  chatml\n"))
        }
        let folder = try ScratchFolder()
        let templates = folder.url.appending(path: "share/llmkit/templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try "{{ messages[0].content }}".write(to: templates.appending(path: "Mine.jinja"), atomically: true, encoding: .utf8)
        let custom = try CommandRunner.llmkit(["run", "--chat-template", "list"], environment: ["LLMKIT_PREFIX": folder.url.path])
        #expect(custom.stdout.hasPrefix("installed templates (\(templates.path)):\n  Mine\nllama.cpp built-in templates:\n"))
    }

    @Test("--chat-template takes an installed template's name; an unknown name lists the nearest")
    func templateName() throws {
        let folder = try ScratchFolder()
        try #"[{"role": "user", "content": "Hi!"}]"#.write(toFile: folder.path("m.json"), atomically: true, encoding: .utf8)
        let byName = try CommandRunner.llmkit(["prompt", "--chat-template", "Qwen-Qwen3-0.6B", "--messages", folder.path("m.json")])
        let byPath = try CommandRunner.llmkit(["prompt", "--chat-template", Templates.path("Qwen-Qwen3-0.6B"), "--messages", folder.path("m.json")])
        #expect(byName.status == 0 && byName.stdout == byPath.stdout && byName.stdout.contains("<|im_start|>user"))
        let builtin = try CommandRunner.llmkit(["prompt", "--chat-template", "chatml", "--messages", folder.path("m.json")])
        #expect(builtin.status == 0)
        let unknown = try CommandRunner.llmkit(["run", "--chat-template", "qwen3-0.6b", "x"])
        #expect(unknown.status == 2 && unknown.stderr.contains("usage: llmkit run"))
        #expect(unknown.stderr.contains("nearest names: Qwen-Qwen3-0.6B,"), "\(unknown.stderr)")
        // A path keeps naming the missing file (a runtime error, as before).
        let missing = try CommandRunner.llmkit(["run", "--chat-template", folder.path("none.jinja"), "x"])
        #expect(missing.status == 1 && missing.stderr.contains(folder.path("none.jinja")))
    }
}
